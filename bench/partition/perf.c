/*===- perf.c - MPICH perf-like: each rank writes its block, reads it back ===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * perf --dir DIR [--block BYTES] [--piece BYTES]
 * Paper 4, section 4.1: "every process writes a 1 MB chunk at a location
 * determined by its rank, and then reads it back later". Here in pieces
 * (MPI_File_write_at), a barrier, then read back and checked.
 *===----------------------------------------------------------------------===*/
#include "bench.h"

int main(int argc, char **argv) {
  b_init(&argc, &argv);
  long long block = b_opt(argc, argv, "--block", 1 << 20), piece = b_opt(argc, argv, "--piece", 64 << 10);
  const char *dir = b_str(argc, argv, "--dir", ".");
  B_CHECK(block % piece == 0);
  char path[4096];
  snprintf(path, sizeof path, "%s/perf.dat", dir);
  unsigned char *buf = malloc((size_t)piece), *got = malloc((size_t)piece);
  MPI_File fh;
  B_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  long long base = (long long)b_rank * block;
  for (long long off = 0; off < block; off += piece) {
    for (long long i = 0; i < piece; ++i)
      buf[i] = b_byte(1, (unsigned long long)(base + off + i));
    B_WRITE(MPI_File_write_at(fh, base + off, buf, (int)piece, MPI_BYTE, MPI_STATUS_IGNORE), piece);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (long long off = 0; off < block; off += piece) {
    B_READ(MPI_File_read_at(fh, base + off, got, (int)piece, MPI_BYTE, MPI_STATUS_IGNORE), piece);
    for (long long i = 0; i < piece; ++i)
      B_CHECK(got[i] == b_byte(1, (unsigned long long)(base + off + i)));
    b_hash_bytes(got, (size_t)piece);
  }
  B_MPI(MPI_File_close(&fh));
  b_report("perf");
  free(buf);
  free(got);
  MPI_Finalize();
  return 0;
}
