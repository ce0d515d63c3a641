/*===- global_def.c - Defines a disk-resident global A (test/install) -------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Compiled with the plugin: A leaves the object file (only the slot
 * A.iopoly stays), so extern_user.c, compiled without it, cannot link.
 *===----------------------------------------------------------------------===*/
#include <stdio.h>
#define N 4096
double A[N];
#pragma iopoly disk_resident(A)
double extern_sum(void);

int main(void) {
  for (int i = 0; i < N; ++i)
    A[i] = i;
  printf("%.0f\n", extern_sum());
  return 0;
}
