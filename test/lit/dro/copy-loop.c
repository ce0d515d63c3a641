// A time-stepped stencil whose second half-step copies B back into A.
// LLVM's loop-idiom recognition would turn the copy loop into a memcpy of
// each row, a byte-typed access Polly cannot relate to the arrays' doubles,
// and Polly would dismiss the whole time loop ("Inbounds assumption:
// false"): every Polly mode would then run the original order. In the Polly
// modes the copy stays a loop, the time loop is one SCoP, and dro-wp reads
// each stripe about once instead of once per time step and sweep.
//
// UBSan's pointer-overflow checks (the sanitizer builds compile programs
// with -fsanitize=undefined) are calls Polly cannot model.
// UNSUPPORTED: sanitize
//
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 \
// RUN:   -Rpass=iopoly -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=lower %s -o %t.lower
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t.wp
// RUN: rm -rf %t.data && mkdir -p %t.data && %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 IOPOLY_STATS=%t.lower.stats %t.lower > %t.lower.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 IOPOLY_STATS=%t.wp.stats %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.lower.out
// RUN: cmp %t.off.out %t.wp.out
// The original order reads both arrays (256 stripes) at every half-step:
// about 2,000 fetches. Restructured: about 256.
// RUN: FileCheck %s --check-prefix=LOWER < %t.lower.stats
// RUN: FileCheck %s --check-prefix=WP < %t.wp.stats
//
// REMARK: copy-loop.c:[[@LINE+13]]:{{[0-9]+}}: remark: dro-wp: tiled the loops here
// IR-LABEL: define {{.*}} @main(
// IR-NOT: @llvm.memcpy
// LOWER: "stripe_fetches":{{[0-9][0-9][0-9][0-9]}},
// WP: "stripe_fetches":{{[0-9][0-9][0-9]}},
#include <stdio.h>
#define N 256
#define T 4
double A[N][N], B[N][N];
#pragma iopoly disk_resident(A, B)

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = (double)((i * 7 + j * 3) % 29);
  for (int t = 0; t < T; ++t) {
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        A[i][j] = B[i][j];
  }
  double S = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      S += A[i][j] * (i + 1);
  printf("%.17g\n", S);
  return 0;
}
