/*===- callcost.c - What one MPI-IO call costs, with and without a layer ---===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * callcost --dir DIR [--calls N] [--size BYTES]
 * Every rank makes N small MPI_File_write_at and N MPI_File_read_at calls
 * on its own part of one file (in the page cache: the call's own cost is
 * what shows), and opens and closes the file 20 times. Rank 0 prints the
 * nanoseconds per write and read call and the milliseconds per open+close
 * (slowest rank), as a JSON line. Built plain and with the profiler, it
 * gives the profiler's cost per call.
 *===----------------------------------------------------------------------===*/
#include "bench.h"

int main(int argc, char **argv) {
  b_init(&argc, &argv);
  long long n = b_opt(argc, argv, "--calls", 20000), size = b_opt(argc, argv, "--size", 64);
  const char *dir = b_str(argc, argv, "--dir", ".");
  char path[4096];
  snprintf(path, sizeof path, "%s/callcost.dat", dir);
  unsigned char buf[4096];
  B_CHECK(size <= (long long)sizeof buf);
  memset(buf, b_rank, sizeof buf);
  MPI_File fh;
  B_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  long long base = (long long)b_rank * n * size;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long long i = 0; i < n; ++i)
    B_MPI(MPI_File_write_at(fh, base + i * size, buf, (int)size, MPI_BYTE, MPI_STATUS_IGNORE));
  double t1 = MPI_Wtime();
  for (long long i = 0; i < n; ++i)
    B_MPI(MPI_File_read_at(fh, base + i * size, buf, (int)size, MPI_BYTE, MPI_STATUS_IGNORE));
  double t2 = MPI_Wtime();
  B_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  double t3 = MPI_Wtime();
  for (int i = 0; i < 20; ++i) {
    B_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    B_MPI(MPI_File_close(&fh));
  }
  double t4 = MPI_Wtime();
  double mine[3] = {(t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9, (t4 - t3) / 20 * 1e3}, worst[3];
  MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (b_rank == 0)
    printf("{\"bench\":\"callcost\",\"nranks\":%d,\"write_ns\":%.1f,\"read_ns\":%.1f,\"open_close_ms\":%.3f}\n", b_size,
           worst[0], worst[1], worst[2]);
  MPI_Finalize();
  return 0;
}
