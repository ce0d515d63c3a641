// An order that violates a dependence is never applied. The hidden test
// option -iopoly-debug-reverse-order hands the legality check the set
// families in reverse order (the third nest before the first, against
// their flow dependences): Polly's Dependences::isValidSchedule refuses
// it, a missed remark says why, and the program keeps its original order
// and output.
// RUN: %clang_iopoly -O1 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-versions=all -fplugin-arg-iopoly-stripe=8K \
// RUN:   -fplugin-arg-iopoly-disks=4 -Rpass=iopoly -Rpass-missed=iopoly \
// RUN:   -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %clang_iopoly -O1 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-versions=all -fplugin-arg-iopoly-stripe=8K \
// RUN:   -fplugin-arg-iopoly-disks=4 -mllvm -iopoly-debug-reverse-order \
// RUN:   -Rpass=iopoly -Rpass-missed=iopoly -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REFUSED
// Both builds print what mode=off prints.
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-versions=all -fplugin-arg-iopoly-stripe=8K -fplugin-arg-iopoly-disks=4 %s -o %t.wp
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-versions=all -fplugin-arg-iopoly-stripe=8K -fplugin-arg-iopoly-disks=4 \
// RUN:   -mllvm -iopoly-debug-reverse-order %s -o %t.rev
// RUN: %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir %t.data && %iopoly_run %t.wp > %t.wp.out
// RUN: rm -rf %t.data && mkdir %t.data && %iopoly_run %t.rev > %t.rev.out
// RUN: cmp %t.off.out %t.wp.out
// RUN: cmp %t.off.out %t.rev.out

// OK: remark: dro-wp: tiled the loops here by their data
// REFUSED: remark: disk-reuse restructuring left the loops here in their order: the tiled order would violate a dependence (Polly's check refused it)
// REFUSED-NOT: dro-wp: tiled
#include <stdio.h>
#define N 64
double A[N][N];
#pragma iopoly disk_resident(A)

__attribute__((noinline)) void nests(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = i + j;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = A[i][j] * 2;
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      A[i][j] = A[i][j] + 1;
}

int main(void) {
  nests();
  double s = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      s = s * 0.5 + A[i][j] * (i + 1) - j;
  printf("%a\n", s);
  return 0;
}
