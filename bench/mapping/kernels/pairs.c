/* Row i of A and row i/2 of H: consecutive pairs of iterations share a row
 * of H, and iteration i also reads row N-1-i of A. */
#include "mapk.h"
#define N (128 * SCALE)
#define M 512
double A[N][M], H[N / 2][M], C[N][M];
#pragma iopoly disk_resident(A, H, C)
int main(int argc, char **argv) {
  mapk_begin(&argc, &argv);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      A[i][j] = (3 * i + j) % 11;
  for (int i = 0; i < N / 2; ++i)
    for (int j = 0; j < M; ++j)
      H[i][j] = (i + 5 * j) % 7;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      C[i][j] = A[i][j] * H[i / 2][j] + A[N - 1 - i][j];
  if (mapk_verify())
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j)
        mapk_mix(C[i][j]);
  mapk_end("pairs");
  return 0;
}
