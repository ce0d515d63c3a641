/*===- reductions.c - Several reductions over two disk-resident arrays ------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The statistics passes of an analysis code (paper 1's astro and hf class):
 * four nests reduce the same two disk-resident arrays in different
 * directions, into small in-memory accumulators: row sums of A (rows),
 * column sums of A (columns), the row-wise dot products of A and B (rows),
 * and column sums of B weighted by A's row sums (columns). Accumulators
 * are arrays updated inside the nest (acc[j] += ...), so Polly keeps each
 * reduction in its original order and every mode computes bit-identical
 * sums.
 *===----------------------------------------------------------------------===*/
#include "kernel.h"

#ifndef N
#define N 768
#endif
double A[N][N], B[N][N];
double rowA[N], colA[N], dotAB[N], colB[N];
#pragma iopoly disk_resident(A, B)

int main(int argc, char **argv) {
  KERNEL_MAIN_PROLOGUE(sizeof A + sizeof B);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      A[i][j] = (double)((i * 7 + j * 13) % 61) * 0.125 - 3.0;
      B[i][j] = (double)((i * 5 + j * 3) % 37) * 0.25;
    }
  for (int i = 0; i < N; ++i) /* R1: row sums of A */
    for (int j = 0; j < N; ++j)
      rowA[i] += A[i][j];
  for (int j = 0; j < N; ++j) /* R2: column sums of A, column-wise */
    for (int i = 0; i < N; ++i)
      colA[j] += A[i][j];
  for (int i = 0; i < N; ++i) /* R3: dot products of the rows of A and B */
    for (int j = 0; j < N; ++j)
      dotAB[i] += A[i][j] * B[i][j];
  for (int j = 0; j < N; ++j) /* R4: column sums of B weighted by R1 */
    for (int i = 0; i < N; ++i)
      colB[j] += B[i][j] * rowA[i];
  CHECKSUM(rowA);
  CHECKSUM(colA);
  CHECKSUM(dotAB);
  CHECKSUM(colB);
  checksum_print();
  return 0;
}
