/*===- mpi_halo.c - An MPI program with disk-resident global arrays --------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Built with iopoly-mpicc and run on 2 ranks (test/install/mpicc.sh): each
 * rank smooths its own A and B (disk-resident, 1.28 MB each, under its own
 * IOPOLY_DIR) and exchanges a halo with its neighbours every step. MPI
 * never sees disk-resident memory: the halo is copied to and from local
 * buffers by compiled loops. Rank 0 prints every rank's checksum and the
 * global sum, exact in hex, the same with and without lowering.
 *===----------------------------------------------------------------------===*/
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#define N 160000
#define H 512
#define STEPS 3
double A[N], B[N];
#pragma iopoly disk_resident(A, B)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 64)
    MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < N; ++i)
    A[i] = (rank + 1) * 0.5 + (i % 113) * 0.25;
  double out[H], in[H];
  for (int t = 0; t < STEPS; ++t) {
    for (int i = 0; i < H; ++i)
      out[i] = A[i];
    MPI_Sendrecv(out, H, MPI_DOUBLE, (rank + size - 1) % size, 0, in, H, MPI_DOUBLE,
                 (rank + 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    B[0] = A[0];
    for (int i = 1; i < N - 1; ++i)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
    B[N - 1] = (A[N - 2] + A[N - 1] + in[0]) / 3.0;
    for (int i = 0; i < N; ++i)
      A[N - 1 - i] = B[i] + in[i % H] * 1e-3;
  }
  uint64_t h = 1469598103934665603ULL;
  double sum = 0;
  for (int i = 0; i < N; ++i) {
    union { double d; uint64_t u; } c = {A[i]};
    h = (h ^ c.u) * 1099511628211ULL;
    sum += A[i];
  }
  unsigned long long mine = h, all[64];
  double total = 0;
  MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      printf("rank %d checksum %016llx\n", r, all[r]);
    printf("sum %a\n", total);
  }
  MPI_Finalize();
  return 0;
}
