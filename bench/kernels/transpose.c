/*===- transpose.c - U[i][j] = f(V[j][i]) -----------------------------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Paper 1, section 4: U is walked row-wise and V column-wise, so with both
 * stored row-major, V's stripes are fetched again for every few columns.
 *===----------------------------------------------------------------------===*/
#include "kernel.h"

#ifndef N
#define N 768
#endif
double U[N][N], V[N][N];
#pragma iopoly disk_resident(U, V)

int main(int argc, char **argv) {
  KERNEL_MAIN_PROLOGUE(sizeof U + sizeof V);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      V[i][j] = (double)((i * 31 + j * 17) % 257) - 128.0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      U[i][j] = V[j][i] * 0.75 + 1.0;
  CHECKSUM(U);
  checksum_print();
  return 0;
}
