/*===- matmul.c - A blocked matrix product (paper 1, Fig. 4) ----------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * W += U * V over R x R blocks of B x B elements, in the loop order of the
 * paper's MPI-IO code: for each block row of U, for each block column of
 * V, the block product.
 *===----------------------------------------------------------------------===*/
#include "kernel.h"

#ifndef N
#define N 512
#endif
#ifndef B
#define B 64
#endif
double U[N][N], V[N][N], W[N][N];
#pragma iopoly disk_resident(U, V, W)

int main(int argc, char **argv) {
  KERNEL_MAIN_PROLOGUE(sizeof U + sizeof V + sizeof W);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      U[i][j] = (double)((i + 2 * j) % 11) - 5.0;
      V[i][j] = (double)((3 * i + j) % 7) * 0.5;
    }
  for (int ii = 0; ii < N; ii += B)
    for (int jj = 0; jj < N; jj += B)
      for (int kk = 0; kk < N; kk += B)
        for (int i = ii; i < ii + B; ++i)
          for (int k = kk; k < kk + B; ++k)
            for (int j = jj; j < jj + B; ++j)
              W[i][j] += U[i][k] * V[k][j];
  CHECKSUM(W);
  checksum_print();
  return 0;
}
