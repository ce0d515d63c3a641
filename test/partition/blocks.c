/*===- blocks.c - A fixed data set split by rank (rank/size plans) --------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * blocks TOTAL FILE: rank r of n writes bytes [r*TOTAL/n, (r+1)*TOTAL/n) of
 * FILE in two calls and reads them back. The pattern is the same function
 * of rank and size at every n that divides TOTAL, so profiles at two rank
 * counts give a plan for others.
 *===----------------------------------------------------------------------===*/
#include "ptest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  pt_rank = r;
  PT_CHECK(argc == 3);
  long long total = atoll(argv[1]), part = total / n, half = part / 2;
  unsigned char *buf = malloc((size_t)part), *got = malloc((size_t)part);
  pt_fill(buf, (size_t)part, 5, (unsigned long long)(r * part));
  MPI_File fh;
  PT_MPI(MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  PT_MPI(MPI_File_write_at_all(fh, r * part, buf, (int)half, MPI_BYTE, MPI_STATUS_IGNORE));
  PT_MPI(MPI_File_write_at(fh, r * part + half, buf + half, (int)(part - half), MPI_BYTE, MPI_STATUS_IGNORE));
  PT_MPI(MPI_File_read_at_all(fh, r * part, got, (int)part, MPI_BYTE, MPI_STATUS_IGNORE));
  PT_CHECK(memcmp(got, buf, (size_t)part) == 0);
  PT_MPI(MPI_File_close(&fh));
  free(buf);
  free(got);
  MPI_Finalize();
  return 0;
}
