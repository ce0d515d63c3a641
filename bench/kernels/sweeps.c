/*===- sweeps.c - Several loop nests sweeping one array ---------------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Paper 1, Fig. 3: three nests touch the same disk-resident array, each over
 * a different part and in a different direction, so the original order keeps
 * going back to stripes it touched long ago. Row-wise fill, column-wise
 * sums, a row update using those sums, and a second column sweep. The
 * column sums accumulate into in-memory arrays inside the nest
 * (colsum[j] += A[i][j]), so Polly keeps each sum in its original order.
 *===----------------------------------------------------------------------===*/
#include "kernel.h"

#ifndef N
#define N 768
#endif
double A[N][N];
double colsum[N], altsum[N / 2];
#pragma iopoly disk_resident(A)

int main(int argc, char **argv) {
  KERNEL_MAIN_PROLOGUE(sizeof A);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = (double)((i * 13 + j * 7) % 101) * 0.01;
  for (int j = 0; j < N; ++j) /* L2: columns */
    for (int i = 0; i < N; ++i)
      colsum[j] += A[i][j];
  for (int i = 0; i < N / 2; ++i) /* L3: the top half, row-wise */
    for (int j = 0; j < N; ++j)
      A[i][j] = A[i][j] * 0.5 + colsum[j] * 1e-3;
  for (int j = 0; j < N; j += 2) /* L4: every other column */
    for (int i = 0; i < N; ++i)
      altsum[j / 2] += A[i][j];
  CHECKSUM(A);
  CHECKSUM(colsum);
  CHECKSUM(altsum);
  checksum_print();
  return 0;
}
