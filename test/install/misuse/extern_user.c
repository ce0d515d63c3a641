/*===- extern_user.c - Uses global_def.c's A, compiled without the plugin --===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *===----------------------------------------------------------------------===*/
#define N 4096
extern double A[N];

double extern_sum(void) {
  double s = 0;
  for (int i = 0; i < N; ++i)
    s += A[i];
  return s;
}
