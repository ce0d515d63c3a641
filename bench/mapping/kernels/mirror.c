/* Rows i and N-1-i are read together: iterations at both ends of the
 * range share their data, which blocks of iterations never bring together. */
#include "mapk.h"
#define N (128 * SCALE)
#define M 512
double A[N][M], C[N][M];
#pragma iopoly disk_resident(A, C)
int main(int argc, char **argv) {
  mapk_begin(&argc, &argv);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      A[i][j] = i * 0.25 + j;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      C[i][j] = A[i][j] + A[N - 1 - i][j];
  if (mapk_verify())
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j)
        mapk_mix(C[i][j]);
  mapk_end("mirror");
  return 0;
}
