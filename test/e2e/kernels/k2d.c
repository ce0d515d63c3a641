/* 2-D: transposed access U[i][j] = f(V[j][i]), a 5-point Jacobi stencil over
 * several time steps, and a matrix-vector product. */
#include "emit.h"
#define N 320
double U[N][N], V[N][N], W[N][N];
double x[N], y[N];
#pragma iopoly disk_resident(U, V, W, y)

int main(void) {
  for (int i = 0; i < N; ++i) {
    x[i] = 1.0 / (i + 1);
    for (int j = 0; j < N; ++j)
      V[i][j] = (double)((i * 31 + j * 17) % 101) / 7.0;
  }
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      U[i][j] = V[j][i] * 2.0 - 1.0;
  for (int t = 0; t < 4; ++t) {
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        W[i][j] = 0.2 * (U[i][j] + U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1]);
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        U[i][j] = W[i][j];
  }
  for (int i = 0; i < N; ++i) {
    double s = 0;
    for (int j = 0; j < N; ++j)
      s += U[i][j] * x[j];
    y[i] = s;
  }
  EMIT(U);
  EMIT(W);
  EMIT(y);
  return 0;
}
