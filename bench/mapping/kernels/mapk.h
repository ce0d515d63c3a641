/*===- mapk.h - Helpers of the mapping benchmark kernels ------------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Each kernel is a serial program plus MPI_Init/MPI_Finalize: built with
 * iopoly-mpicc -fplugin-arg-iopoly-mpi=on its parallel loops run on every
 * rank with the rank's iterations, on disk-resident arrays the ranks share.
 * SCALE (-DSCALE=n) sizes the data. Every rank prints one checksum of the
 * output arrays, which must equal the serial (mode=off) program's. With
 * MAPK_CHECKSUM=off the checksum loops are skipped: every rank reading all
 * of the output would swamp the kernel's own cache misses, so measured runs
 * skip them and the benchmark compares the array files instead.
 *===----------------------------------------------------------------------===*/
#ifndef MAPK_H
#define MAPK_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCALE
#define SCALE 1
#endif

static uint64_t mapk_hash = 1469598103934665603ULL;

/* Not inlined: the checksum loops then stay serial and outside the SCoPs. */
__attribute__((noinline)) static void mapk_mix(double x) {
  union { double d; uint64_t u; } c = {x};
  mapk_hash = (mapk_hash ^ c.u) * 1099511628211ULL;
}

/* Whether the checksum loops run (MAPK_CHECKSUM is not "off"). */
static int mapk_verify(void) {
  const char *E = getenv("MAPK_CHECKSUM");
  return !E || strcmp(E, "off") != 0;
}

static void mapk_begin(int *argc, char ***argv) { MPI_Init(argc, argv); }

static void mapk_end(const char *name) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (mapk_verify())
    printf("%s rank %d checksum %016llx\n", name, rank, (unsigned long long)mapk_hash);
  else
    printf("%s rank %d checksum skipped\n", name, rank);
  MPI_Finalize();
}

#endif
