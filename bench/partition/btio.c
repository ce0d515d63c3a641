/*===- btio.c - BT-IO-like: a 3-D solution appended every step, read back ===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * btio --dir DIR [--n N] [--steps S]
 * Paper 4, section 4.1 (NPB BT with I/O): "each process periodically
 * writes sequentially, and this chunk is later read; chunk sizes are a
 * function of the number of processes". An N^3 grid of 5-double cells is
 * split over a py x px grid of ranks in the y-z plane (4 = 2x2, 8 = 4x2,
 * 16 = 4x4); every step each rank writes its cells through a subarray view
 * at the step's place in the file (MPI_File_write_all); at the end every
 * rank reads all its steps back (MPI_File_read_all) and checks them.
 *===----------------------------------------------------------------------===*/
#include "bench.h"

static void grid(int p, int *px, int *py) {
  int x = 1;
  for (int d = 1; d * d <= p; ++d)
    if (p % d == 0)
      x = d;
  *py = x;
  *px = p / x;
}

static double cell(long long z, long long y, long long x, int c, int step) {
  return (double)((z * 131 + y) * 137 + x) + 0.125 * c + 1000.0 * step;
}

int main(int argc, char **argv) {
  b_init(&argc, &argv);
  int N = (int)b_opt(argc, argv, "--n", 32), steps = (int)b_opt(argc, argv, "--steps", 5);
  const char *dir = b_str(argc, argv, "--dir", ".");
  int px, py;
  grid(b_size, &px, &py);
  B_CHECK(N % px == 0 && N % py == 0);
  int cz = b_rank / px, cy = b_rank % px;
  int sizes[4] = {N, N, N, 5}, sub[4] = {N / py, N / px, N, 5}, start[4] = {cz * (N / py), cy * (N / px), 0, 0};
  MPI_Datatype mine;
  MPI_Type_create_subarray(4, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &mine);
  MPI_Type_commit(&mine);
  long long cells = (long long)sub[0] * sub[1] * sub[2], stepbytes = (long long)N * N * N * 5 * sizeof(double);
  double *u = malloc(sizeof(double) * (size_t)cells * 5);
  char path[4096];
  snprintf(path, sizeof path, "%s/btio.out", dir);
  MPI_File fh;
  B_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  for (int s = 0; s < steps; ++s) {
    size_t k = 0;
    for (int z = 0; z < sub[0]; ++z)
      for (int y = 0; y < sub[1]; ++y)
        for (int x = 0; x < N; ++x)
          for (int c = 0; c < 5; ++c)
            u[k++] = cell(start[0] + z, start[1] + y, x, c, s);
    B_MPI(MPI_File_set_view(fh, s * stepbytes, MPI_DOUBLE, mine, "native", MPI_INFO_NULL));
    B_WRITE(MPI_File_write_all(fh, u, (int)(cells * 5), MPI_DOUBLE, MPI_STATUS_IGNORE), cells * 5 * 8);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int s = 0; s < steps; ++s) {
    B_MPI(MPI_File_set_view(fh, s * stepbytes, MPI_DOUBLE, mine, "native", MPI_INFO_NULL));
    B_READ(MPI_File_read_all(fh, u, (int)(cells * 5), MPI_DOUBLE, MPI_STATUS_IGNORE), cells * 5 * 8);
    size_t k = 0;
    for (int z = 0; z < sub[0]; ++z)
      for (int y = 0; y < sub[1]; ++y)
        for (int x = 0; x < N; ++x)
          for (int c = 0; c < 5; ++c)
            B_CHECK(u[k++] == cell(start[0] + z, start[1] + y, x, c, s));
    b_hash_bytes(u, sizeof(double) * (size_t)cells * 5);
  }
  B_MPI(MPI_File_close(&fh));
  MPI_Type_free(&mine);
  b_report("btio");
  free(u);
  MPI_Finalize();
  return 0;
}
