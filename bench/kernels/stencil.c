/*===- stencil.c - A time-stepped 5-point Jacobi stencil --------------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * T time steps over two arrays; each step applies the stencil from U into W
 * and then from W back into U (no copy loop: clang turns a row copy into
 * memcpy, which keeps Polly from modelling the nest). Every step sweeps all
 * of both arrays twice.
 *===----------------------------------------------------------------------===*/
#include "kernel.h"

#ifndef N
#define N 1024
#endif
#ifndef T
#define T 4
#endif
double U[N][N], W[N][N];
#pragma iopoly disk_resident(U, W)

int main(int argc, char **argv) {
  KERNEL_MAIN_PROLOGUE(sizeof U + sizeof W);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      U[i][j] = (double)((i * 7 + j * 3) % 29);
  for (int t = 0; t < T; ++t) {
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        W[i][j] = 0.2 * (U[i][j] + U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1]);
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        U[i][j] = 0.2 * (W[i][j] + W[i - 1][j] + W[i + 1][j] + W[i][j - 1] + W[i][j + 1]);
  }
  CHECKSUM(U);
  checksum_print();
  return 0;
}
