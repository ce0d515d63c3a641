/*===- backend.c - iopoly's own MPI-IO backend under the layers -----------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * With IOPOLY_BACKEND=mpiio every rank writes an array of its own through
 * the stripe buffer (much smaller than the array, so blocks are written back
 * and fetched again), rewrites every third block after checking it, closes,
 * reopens and checks every byte. The mpiio module opens each disk file on
 * MPI_COMM_SELF: the profiler sees it, the plan keeps it node-local.
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"
#include "ptest.h"

static void check_block(iopoly_array *a, size_t b, unsigned seed) {
  size_t S = iopoly_block_size();
  const unsigned char *p = (const unsigned char *)iopoly_attach(a, b, IOPOLY_READ);
  PT_CHECK(p != NULL);
  for (size_t i = 0; i < S; ++i)
    PT_CHECK(p[i] == pt_byte(seed, b * S + i));
  PT_CHECK(iopoly_release(a, b) == 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  pt_rank = r;
  size_t S = iopoly_block_size(), nb = 40;
  char name[32];
  snprintf(name, sizeof name, "part%d", r);
  size_t dims[1] = {nb * S};
  iopoly_array *a = iopoly_open(name, 1, 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  PT_CHECK(a != NULL);
  for (size_t b = 0; b < nb; ++b) {
    unsigned char *p = (unsigned char *)iopoly_attach(a, b, IOPOLY_WRITE);
    PT_CHECK(p != NULL);
    pt_fill(p, S, 100 + (unsigned)r, b * S);
    PT_CHECK(iopoly_release(a, b) == 0);
  }
  for (size_t b = 0; b < nb; b += 3) {
    check_block(a, b, 100 + (unsigned)r);
    unsigned char *p = (unsigned char *)iopoly_attach(a, b, IOPOLY_WRITE);
    PT_CHECK(p != NULL);
    pt_fill(p, S, 200 + (unsigned)r, b * S);
    PT_CHECK(iopoly_release(a, b) == 0);
  }
  PT_CHECK(iopoly_close(a) == 0);
  a = iopoly_open(name, 1, 1, dims, IOPOLY_RDONLY);
  PT_CHECK(a != NULL);
  for (size_t b = 0; b < nb; ++b)
    check_block(a, b, (b % 3 == 0 ? 200u : 100u) + (unsigned)r);
  PT_CHECK(iopoly_close(a) == 0);
  MPI_Finalize();
  return 0;
}
