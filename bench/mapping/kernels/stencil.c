/* A five-point stencil over rows: neighbouring iterations share rows. */
#include "mapk.h"
#define N (128 * SCALE)
#define M 512
double A[N][M], B[N][M];
#pragma iopoly disk_resident(A, B)
int main(int argc, char **argv) {
  mapk_begin(&argc, &argv);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      A[i][j] = (i + 2 * j) % 17;
  for (int i = 1; i < N - 1; ++i)
    for (int j = 1; j < M - 1; ++j)
      B[i][j] = A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1] - 4 * A[i][j];
  if (mapk_verify())
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j)
        mapk_mix(B[i][j]);
  mapk_end("stencil");
  return 0;
}
