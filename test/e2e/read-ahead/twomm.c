/* test/e2e/read-ahead/twomm.c (e2e.read_ahead). Two chained matrix products, D = (A B) C, in the i-j-k order of PolyBench
 * 2mm: B and C are read down their columns, so the compiler stores them
 * column-major and dro-wp runs Polly's tiles, whose rows read ahead. */
#include "kernel.h"

#ifndef N
#define N 192
#endif

static double A[N][N], B[N][N], C[N][N], T[N][N], D[N][N];
#pragma iopoly disk_resident(A, B, C, T, D)

int main(int argc, char **argv) {
  KERNEL_MAIN_PROLOGUE(sizeof A + sizeof B + sizeof C + sizeof T + sizeof D);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * j + 1) % N) / N;
      B[i][j] = (double)(i * (j + 1) % N) / N;
      C[i][j] = (double)((i * (j + 3) + 1) % N) / N;
      D[i][j] = (double)(i * (j + 2) % N) / N;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      T[i][j] = 0.0;
      for (int k = 0; k < N; ++k)
        T[i][j] += 1.5 * A[i][k] * B[k][j];
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      D[i][j] *= 1.2;
      for (int k = 0; k < N; ++k)
        D[i][j] += T[i][k] * C[k][j];
    }
  for (int i = 0; i < N; i++)
    checksum_add(D[i], sizeof D[i]);
  checksum_print();
  return 0;
}
