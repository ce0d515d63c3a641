/*===- globals.c - Disk-resident globals of an MPI program ----------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Built with iopoly-mpicc (the plugin lowers G and T; libiopoly_mpi wraps
 * MPI_Init). The globals exist before main, but the runtime must not start
 * MPI then: the program's own MPI_Init (or MPI_Init_thread) must work, at
 * any number of ranks and with either backend, and the ranks with the same
 * IOPOLY_DIR then share G and T. Each rank fills its own rows of G, a
 * barrier makes them visible, and every rank checks every row and prints
 * a checksum of G and T, which must be the same on every rank and the
 * same as the serial (-fplugin-arg-iopoly-mode=off, one rank) program's.
 *   argv[1]: "init" (MPI_Init), "thread" (MPI_Init_thread MULTIPLE, which
 *            must be granted) or "never" (no MPI call at all: one process,
 *            the globals are its own)
 *===----------------------------------------------------------------------===*/
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 96
#define COLS 700
double G[ROWS][COLS];                           /* 537,600 bytes */
int T[4000] = {7, 1, 2, [3999] = 42};           /* C initializer */
#pragma iopoly disk_resident(G, T)

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ULL; }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "init";
  int rank = 0, size = 1;
  if (strcmp(mode, "init") == 0) {
    MPI_Init(&argc, &argv);
  } else if (strcmp(mode, "thread") == 0) {
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "FAIL: MPI_THREAD_MULTIPLE not granted (%d)\n", provided);
      return 1;
    }
  } else if (strcmp(mode, "never") != 0) {
    fprintf(stderr, "FAIL: unknown mode %s\n", mode);
    return 1;
  }
  int mpi = strcmp(mode, "never") != 0;
  if (mpi) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  if (T[0] != 7 || T[1] != 1 || T[2] != 2 || T[3] != 0 || T[3999] != 42) {
    fprintf(stderr, "FAIL [rank %d]: the initializer of T is lost: %d %d %d %d %d\n", rank, T[0], T[1], T[2], T[3],
            T[3999]);
    return 1;
  }
  /* My rows: an SPMD block decomposition. */
  int lo = rank * ROWS / size, hi = (rank + 1) * ROWS / size;
  for (int i = lo; i < hi; ++i)
    for (int j = 0; j < COLS; ++j)
      G[i][j] = i * 0.5 + j * 0.25 + (i * j % 17);
  if (rank == size - 1)
    T[5] = 555; /* one int, in a stripe where rank 0's bytes live too */
  if (mpi)
    MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j)
      if (G[i][j] != i * 0.5 + j * 0.25 + (i * j % 17)) {
        fprintf(stderr, "FAIL [rank %d]: G[%d][%d] = %g, row written by another rank is not seen\n", rank, i, j, G[i][j]);
        return 1;
      }
  uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < COLS; ++j) {
      union { double d; uint64_t u; } c = {G[i][j]};
      h = mix(h, c.u);
    }
  for (int k = 0; k < 4000; ++k)
    h = mix(h, (uint64_t)(uint32_t)T[k]);
  printf("rank %d: checksum %016llx\n", rank, (unsigned long long)h);
  if (mpi) {
    MPI_Barrier(MPI_COMM_WORLD); /* nobody changes G while others still read it */
    MPI_Finalize();
  }
  return 0;
}
