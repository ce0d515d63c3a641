/*===- multisweep.c - Nests over three arrays in different orders -----------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Paper 1, Fig. 3 with several arrays (the image passes of its sar and
 * contour class): a row-wise filter from A into B, a column-wise pass over
 * the top half of B and A into C, a row-wise update of the bottom half of
 * A from B, and a column-wise combination of C and A back into B's top
 * half. Every nest touches stripes that another nest touched long before,
 * in another direction.
 *===----------------------------------------------------------------------===*/
#include "kernel.h"

#ifndef N
#define N 768
#endif
double A[N][N], B[N][N], C[N][N];
#pragma iopoly disk_resident(A, B, C)

int main(int argc, char **argv) {
  KERNEL_MAIN_PROLOGUE(sizeof A + sizeof B + sizeof C);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = (double)((i * 11 + j * 5) % 97) * 0.0625;
  for (int i = 0; i < N; ++i) /* M1: rows of A into B */
    for (int j = 0; j < N; ++j)
      B[i][j] = A[i][j] * 0.5 + 1.0;
  for (int j = 0; j < N; ++j) /* M2: columns of the top half of A and B into C */
    for (int i = 0; i < N / 2; ++i)
      C[i][j] = A[i][j] - B[i][j] * 0.25;
  for (int i = N / 2; i < N; ++i) /* M3: rows of the bottom half of A from B */
    for (int j = 0; j < N; ++j)
      A[i][j] = A[i][j] + B[i][j] * 0.125;
  for (int j = 0; j < N; ++j) /* M4: columns of C and A back into the top half of B */
    for (int i = 0; i < N / 2; ++i)
      B[i][j] = C[i][j] + A[i + N / 2][j];
  CHECKSUM(A);
  CHECKSUM(B);
  CHECKSUM(C);
  checksum_print();
  return 0;
}
