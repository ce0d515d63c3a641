/*===- transposed.c - U[i][j] = 2 V[j][i] + 1 ---------------------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The transposed walk of paper 1, section 4 (issue 10's case): V arrives
 * column by column (as from a column-major producer) and is then read
 * against its rows. Stored row-major, every column walk of V refetches its
 * stripes; stored column-major (layout=static chooses it: every access of V
 * is stride-1 there), V is read once, in order.
 *===----------------------------------------------------------------------===*/
#include "kernel.h"

#ifndef N
#define N 1024
#endif
double U[N][N], V[N][N];
#pragma iopoly disk_resident(U, V)

int main(int argc, char **argv) {
  KERNEL_MAIN_PROLOGUE(sizeof U + sizeof V);
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      V[i][j] = (double)((i * 31 + j * 17) % 257) - 128.0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      U[i][j] = 2.0 * V[j][i] + 1.0;
  CHECKSUM(U);
  checksum_print();
  return 0;
}
