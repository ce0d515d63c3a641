/*===- tileio.c - mpi-tile-io-like: 2-D tiles with overlap ---------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * tileio --dir DIR [--tile ELEMENTS] [--overlap ELEMENTS] [--iters N]
 * Paper 4, section 4.1: tile access to a 2-D data set with overlap between
 * neighbouring tiles. The ranks form a px x py grid (4 = 2x2, 8 = 4x2,
 * 16 = 4x4); each writes its tile (8-byte elements, tile x tile) through a
 * subarray view with MPI_File_write_all, then reads it back together with
 * `overlap` elements of its neighbours on every side (MPI_File_read_all),
 * and checks every element.
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

static double value(long long gy, long long gx, int it) { return (double)(gy * 100003 + gx) + 0.25 * it; }

int main(int argc, char **argv) {
  b_init(&argc, &argv);
  int T = (int)b_opt(argc, argv, "--tile", 128), ov = (int)b_opt(argc, argv, "--overlap", 2);
  int iters = (int)b_opt(argc, argv, "--iters", 2);
  const char *dir = b_str(argc, argv, "--dir", ".");
  int px, py;
  grid(b_size, &px, &py);
  int cx = b_rank % px, cy = b_rank / px;
  int sizes[2] = {py * T, px * T};
  char path[4096];
  snprintf(path, sizeof path, "%s/tile.dat", dir);
  MPI_File fh;
  B_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  double *tile = malloc(sizeof(double) * (size_t)T * (size_t)T);
  int y0 = cy * T - ov, y1 = cy * T + T + ov, x0 = cx * T - ov, x1 = cx * T + T + ov;
  if (y0 < 0) y0 = 0;
  if (x0 < 0) x0 = 0;
  if (y1 > sizes[0]) y1 = sizes[0];
  if (x1 > sizes[1]) x1 = sizes[1];
  int rsub[2] = {y1 - y0, x1 - x0}, rstart[2] = {y0, x0};
  double *region = malloc(sizeof(double) * (size_t)rsub[0] * (size_t)rsub[1]);
  MPI_Datatype own, ext;
  int sub[2] = {T, T}, start[2] = {cy * T, cx * T};
  MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &own);
  MPI_Type_create_subarray(2, sizes, rsub, rstart, MPI_ORDER_C, MPI_DOUBLE, &ext);
  MPI_Type_commit(&own);
  MPI_Type_commit(&ext);
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j)
        tile[(size_t)i * T + j] = value(start[0] + i, start[1] + j, it);
    B_MPI(MPI_File_set_view(fh, 0, MPI_DOUBLE, own, "native", MPI_INFO_NULL));
    B_WRITE(MPI_File_write_all(fh, tile, T * T, MPI_DOUBLE, MPI_STATUS_IGNORE), sizeof(double) * T * T);
    MPI_Barrier(MPI_COMM_WORLD);
    B_MPI(MPI_File_set_view(fh, 0, MPI_DOUBLE, ext, "native", MPI_INFO_NULL));
    B_READ(MPI_File_read_all(fh, region, rsub[0] * rsub[1], MPI_DOUBLE, MPI_STATUS_IGNORE),
           sizeof(double) * rsub[0] * rsub[1]);
    for (int i = 0; i < rsub[0]; ++i)
      for (int j = 0; j < rsub[1]; ++j)
        B_CHECK(region[(size_t)i * rsub[1] + j] == value(y0 + i, x0 + j, it));
    b_hash_bytes(region, sizeof(double) * (size_t)rsub[0] * (size_t)rsub[1]);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  B_MPI(MPI_File_close(&fh));
  MPI_Type_free(&own);
  MPI_Type_free(&ext);
  b_report("tileio");
  free(tile);
  free(region);
  MPI_Finalize();
  return 0;
}
