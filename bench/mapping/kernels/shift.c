/* Two halves: C[i] = A[i] + A[i + N/2] reads rows half the array apart,
 * then D[i] = A[i + N/2] - A[i]: the same pairs again. */
#include "mapk.h"
#define N (128 * SCALE)
#define M 512
double A[N][M], C[N / 2][M], E[N / 2][M];
#pragma iopoly disk_resident(A, C, E)
int main(int argc, char **argv) {
  mapk_begin(&argc, &argv);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      A[i][j] = (i * 7 + j) % 13;
  for (int i = 0; i < N / 2; ++i)
    for (int j = 0; j < M; ++j) {
      C[i][j] = A[i][j] + A[i + N / 2][j];
      E[i][j] = A[i + N / 2][j] - A[i][j];
    }
  if (mapk_verify())
    for (int i = 0; i < N / 2; ++i)
      for (int j = 0; j < M; ++j)
        mapk_mix(C[i][j] * 3 + E[i][j]);
  mapk_end("shift");
  return 0;
}
