/*===- jacobi.c - Out-of-core Jacobi on two files -------------------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * jacobi --dir DIR [--rows N] [--cols M] [--iters T] [--init]
 * Paper 4, section 4.1: "the initial out-of-core data is stored in a file
 * ... the result of the jacobi iteration is written to a second file".
 * The grid has N interior rows and M columns of doubles plus a fixed
 * boundary row above and below; rows are split among the ranks (N/P each:
 * chunk sizes are a function of the number of processes). Each sweep
 * reads the rank's rows and one halo row on each side from one file,
 * computes the 5-point average and writes the rank's rows to the other
 * file; the files alternate. --init writes the initial file (rank 0) and
 * stops. Checksum: of every row read.
 *===----------------------------------------------------------------------===*/
#include "bench.h"

int main(int argc, char **argv) {
  b_init(&argc, &argv);
  long long N = b_opt(argc, argv, "--rows", 1024), M = b_opt(argc, argv, "--cols", 512);
  int iters = (int)b_opt(argc, argv, "--iters", 4);
  const char *dir = b_str(argc, argv, "--dir", ".");
  char a[4096], b[4096];
  snprintf(a, sizeof a, "%s/jacobi.a", dir);
  snprintf(b, sizeof b, "%s/jacobi.b", dir);
  size_t row = sizeof(double) * (size_t)M;
  if (b_flag(argc, argv, "--init")) {
    if (b_rank == 0) {
      FILE *f = fopen(a, "wb");
      B_CHECK(f != NULL);
      double *r = malloc(row);
      for (long long i = 0; i < N + 2; ++i) {
        for (long long j = 0; j < M; ++j)
          r[j] = (i == 0 || i == N + 1 || j == 0 || j == M - 1) ? 100.0 : (double)((i * 31 + j * 17) % 97);
        B_CHECK(fwrite(r, 1, row, f) == row);
      }
      fclose(f);
      free(r);
    }
    MPI_Finalize();
    return 0;
  }
  B_CHECK(N % b_size == 0);
  long long L = N / b_size, first = 1 + (long long)b_rank * L; /* my rows: [first, first + L) */
  double *in = malloc(row * (size_t)(L + 2)), *out = malloc(row * (size_t)L);
  MPI_File fa, fb;
  B_MPI(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR, MPI_INFO_NULL, &fa));
  B_MPI(MPI_File_open(MPI_COMM_WORLD, b, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fb));
  /* The boundary rows of the second file: written once by the edge ranks. */
  if (b_rank == 0 || b_rank == b_size - 1) {
    for (long long j = 0; j < M; ++j)
      out[j] = 100.0;
    long long r = b_rank == 0 ? 0 : N + 1;
    B_WRITE(MPI_File_write_at(fb, r * (long long)row, out, (int)M, MPI_DOUBLE, MPI_STATUS_IGNORE), row);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int t = 0; t < iters; ++t) {
    MPI_File src = t % 2 ? fb : fa, dst = t % 2 ? fa : fb;
    B_READ(MPI_File_read_at_all(src, (first - 1) * (long long)row, in, (int)(M * (L + 2)), MPI_DOUBLE,
                                MPI_STATUS_IGNORE),
           row * (L + 2));
    b_hash_bytes(in, row * (size_t)(L + 2));
    for (long long i = 0; i < L; ++i)
      for (long long j = 0; j < M; ++j) {
        const double *c = in + (i + 1) * M;
        out[i * M + j] = (j == 0 || j == M - 1) ? c[j] : 0.25 * (c[j - 1] + c[j + 1] + c[j - M] + c[j + M]);
      }
    B_WRITE(MPI_File_write_at_all(dst, first * (long long)row, out, (int)(M * L), MPI_DOUBLE, MPI_STATUS_IGNORE),
            row * L);
    MPI_Barrier(MPI_COMM_WORLD); /* the next sweep reads the neighbours' rows */
  }
  B_MPI(MPI_File_close(&fa));
  B_MPI(MPI_File_close(&fb));
  b_report("jacobi");
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
