/* The profile-based file layout choice (paper 1, section 4) end to end:
 * W is walked along its columns `cols` times and along its rows `rows`
 * times, counts given on the command line, so the compiler cannot weigh
 * the two walks (static scoring gives both the same representative count
 * and keeps W row-major). A run with
 * "3 1" records three column walks per row walk; the build that reads
 * those counts stores W column-major. Printed element by element (not
 * through their addresses) so that the arrays stay permutable. */
#include <stdio.h>
#include <stdlib.h>
#define N 96
#define M 80
double W[N][M], A[M][N], B[N][M];
#pragma iopoly disk_resident(W, A, B)

static void put(double v) { fwrite(&v, sizeof v, 1, stdout); }

int main(int argc, char **argv) {
  int cols = argc > 1 ? atoi(argv[1]) : 3, rows = argc > 2 ? atoi(argv[2]) : 1;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      W[i][j] = (double)((i * 5 + j * 11) % 23) / 4.0;
  for (int t = 0; t < cols; ++t)
    for (int j = 0; j < M; ++j)
      for (int i = 0; i < N; ++i)
        A[j][i] = A[j][i] * 0.5 + W[i][j];
  for (int t = 0; t < rows; ++t)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j)
        B[i][j] = B[i][j] * 0.25 + W[i][j] * t;
  for (int j = 0; j < M; ++j)
    for (int i = 0; i < N; ++i)
      put(A[j][i]);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      put(B[i][j]);
  return 0;
}
