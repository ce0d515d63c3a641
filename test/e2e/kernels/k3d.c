/* 3-D: a 7-point stencil on floats with the loops in k, j, i order (the
 * innermost loop strides across planes), and a reduction per plane. */
#include "emit.h"
#define N 48
float A[N][N][N], B[N][N][N];
double plane[N];
#pragma iopoly disk_resident(A, B, plane)

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        A[i][j][k] = (float)((i * 3 + j * 5 + k * 7) % 13) * 0.25f;
  for (int k = 1; k < N - 1; ++k)
    for (int j = 1; j < N - 1; ++j)
      for (int i = 1; i < N - 1; ++i)
        B[i][j][k] = (A[i][j][k] * 6 - A[i - 1][j][k] - A[i + 1][j][k] - A[i][j - 1][k] - A[i][j + 1][k] -
                      A[i][j][k - 1] - A[i][j][k + 1]) * 0.5f;
  for (int i = 0; i < N; ++i) {
    double s = 0;
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        s += B[i][j][k];
    plane[i] = s;
  }
  EMIT(B);
  EMIT(plane);
  return 0;
}
