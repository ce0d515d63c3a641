// A loop whose break LLVM folds into its exit test ((k != 23) & (k < 40))
// is not strip-mined: the strip driver ran such a loop past its end (k up
// to 11,398 here) and the program stopped with an out-of-bounds access of
// 'A' (found by random.layouts). Every mode, row-major and with A stored
// column-major, gives the plain program's output.
// UNSUPPORTED: sanitize
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -Rpass-analysis=iopoly %s -o %t.lower 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -fplugin-arg-iopoly-layout=A:1,0 %s -o %t.lower-t
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -fplugin-arg-iopoly-mode=dro-wp %s -o %t.dro
// RUN: %t.off > %t.expected
// RUN: rm -rf %t.data && %iopoly_run %t.lower > %t.out && cmp %t.expected %t.out
// RUN: rm -rf %t.data && %iopoly_run %t.lower-t > %t.out && cmp %t.expected %t.out
// RUN: rm -rf %t.data && %iopoly_run %t.dro > %t.out && cmp %t.expected %t.out
// REMARK: break-strip.c:[[@LINE+10]]:7: remark: loop not strip-mined: its exit test combines several conditions
#include <stdio.h>
double A[280][41];
#pragma iopoly disk_resident(A)
int main(void) {
  for (int p = 0; p < 280; ++p)
    for (int q = 0; q < 41; ++q)
      A[p][q] = p + q;
  for (int i = 29; i >= 0; --i)
    for (int j = 0; j < (i + 1 < 27 ? i + 1 : 27); ++j)
      for (int k = j; k < 41; ++k) {
        A[i][j + 1] = A[i][j + 1] * 0.5 + A[2 * i + 2][k];
        if (k == 23)
          break;
      }
  double s = 0;
  for (int p = 0; p < 280; ++p)
    for (int q = 0; q < 41; ++q)
      s += A[p][q];
  printf("%.17g\n", s);
  return 0;
}
