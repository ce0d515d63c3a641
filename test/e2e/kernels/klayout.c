/* File layouts (paper 1, section 4): arrays walked against row-major, which
 * layout=static stores permuted (V and C column-major, T3 in dimension
 * order 1,2,0), one of them with an initializer. Printed element by element
 * (not through their addresses) so that they stay permutable. */
#include <stdio.h>
#define N 200
#define M 136
double U[N][M], V[M][N];
double T3[12][20][24];
double C[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
#pragma iopoly disk_resident(U, V, T3, C)

static void put(double v) { fwrite(&v, sizeof v, 1, stdout); }

int main(void) {
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i)
      V[i][j] = (double)((i * 7 + j * 3) % 29) / 3.0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      U[i][j] = 2.0 * V[j][i] + 1.0;
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 24; ++j)
      for (int k = 0; k < 12; ++k)
        T3[k][i][j] = i + j * 0.5 + k * 0.25 + U[i][j];
  for (int t = 0; t < 3; ++t)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 3; ++i)
        C[i][j] = C[i][j] * 0.5 + j;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      put(U[i][j]);
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i)
      put(V[i][j]);
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 24; ++j)
      for (int k = 0; k < 12; ++k)
        put(T3[k][i][j]);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i)
      put(C[i][j]);
  return 0;
}
