/* A blocked matrix product W += U * V as in paper 1, Fig. 4, plus a
 * non-blocked one; the result is compared bit for bit. */
#include "emit.h"
#define N 96
#define BS 32
double U[N][N], V[N][N], W[N][N], W2[N][N];
#pragma iopoly disk_resident(U, V, W, W2)

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      U[i][j] = (double)((i + 2 * j) % 11) - 5.0;
      V[i][j] = (double)((3 * i + j) % 7) * 0.5;
    }
  for (int ii = 0; ii < N; ii += BS)
    for (int jj = 0; jj < N; jj += BS)
      for (int kk = 0; kk < N; kk += BS)
        for (int i = ii; i < ii + BS; ++i)
          for (int j = jj; j < jj + BS; ++j)
            for (int k = kk; k < kk + BS; ++k)
              W[i][j] += U[i][k] * V[k][j];
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j)
        W2[i][j] += U[i][k] * V[k][j];
  EMIT(W);
  EMIT(W2);
  return 0;
}
