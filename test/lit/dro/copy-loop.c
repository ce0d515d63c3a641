// A time-stepped stencil whose second half-step copies B back into A, and
// whose boundary rows of B are cleared with memset.
//
// Written as a loop (the default), LLVM's loop-idiom recognition would turn
// the copy into a memcpy of each row; written with memcpy
// (-DCOPY_WITH_MEMCPY), it is one. Polly models such a call as an access of
// bytes it cannot relate to the arrays' doubles and would drop the whole
// time loop ("Inbounds assumption: false"): every Polly mode would then run
// the original order. In the Polly modes the copy stays a loop, explicit
// memcpy/memset calls on the arrays become loops over their elements, the
// time loop is one SCoP, and dro-wp reads each stripe about once instead of
// once per time step and sweep.
//
// UBSan's pointer-overflow checks (the sanitizer builds compile programs
// with -fsanitize=undefined) are calls Polly cannot model.
// UNSUPPORTED: sanitize
//
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: rm -rf %t.data && mkdir -p %t.data && %t.off > %t.off.out
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=lower %s -o %t.lower
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 IOPOLY_STATS=%t.lower.stats %t.lower > %t.lower.out
// RUN: cmp %t.off.out %t.lower.out
// The original order reads both arrays (256 stripes) at every half-step:
// about 2,000 fetches. Restructured: a few hundred.
// RUN: FileCheck %s --check-prefix=LOWER < %t.lower.stats
//
// The copy as a loop:
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 \
// RUN:   -Rpass=iopoly -Rpass-missed=iopoly -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t.wp
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 IOPOLY_STATS=%t.wp.stats %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.wp.out
// RUN: FileCheck %s --check-prefix=WP < %t.wp.stats
//
// The copy as memcpy (clo too):
// RUN: %clang_iopoly -O2 -DCOPY_WITH_MEMCPY -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K \
// RUN:   -fplugin-arg-iopoly-disks=4 -Rpass=iopoly -Rpass-missed=iopoly -S -emit-llvm %s -o %t.m.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.m.ll
// RUN: %iopoly_clang -O2 -DCOPY_WITH_MEMCPY -fplugin-arg-iopoly-mode=off %s -o %t.m.off
// RUN: rm -rf %t.data && mkdir -p %t.data && %t.m.off > %t.m.off.out
// RUN: cmp %t.off.out %t.m.off.out
// RUN: %iopoly_clang -O2 -DCOPY_WITH_MEMCPY -fplugin-arg-iopoly-mode=clo %s -o %t.m.clo
// RUN: rm -rf %t.data && mkdir -p %t.data && %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 %t.m.clo > %t.m.clo.out
// RUN: cmp %t.off.out %t.m.clo.out
// RUN: %iopoly_clang -O2 -DCOPY_WITH_MEMCPY -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K \
// RUN:   -fplugin-arg-iopoly-disks=4 %s -o %t.m.wp
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 IOPOLY_STATS=%t.m.wp.stats %t.m.wp > %t.m.wp.out
// RUN: cmp %t.off.out %t.m.wp.out
// RUN: FileCheck %s --check-prefix=WP < %t.m.wp.stats
//
// REMARK-NOT: leaves the loops here
// REMARK: copy-loop.c:[[@LINE+15]]:{{[0-9]+}}: remark: dro-wp: tiled the loops here
// REMARK-NOT: leaves the loops here
// IR-LABEL: define {{.*}} @main(
// IR-NOT: @llvm.mem{{cpy|set}}
// LOWER: "stripe_fetches":{{[0-9][0-9][0-9][0-9]}},
// WP: "stripe_fetches":{{[0-9][0-9][0-9]}},
#include <stdio.h>
#include <string.h>
#define N 256
#define T 4
double A[N][N], B[N][N];
#pragma iopoly disk_resident(A, B)

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = (double)((i * 7 + j * 3) % 29);
  memset(B[0], 0, sizeof B[0]);
  memset(B[N - 1], 0, sizeof B[N - 1]);
  for (int t = 0; t < T; ++t) {
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; ++i)
#ifdef COPY_WITH_MEMCPY
      memcpy(&A[i][1], &B[i][1], (N - 2) * sizeof(double));
#else
      for (int j = 1; j < N - 1; ++j)
        A[i][j] = B[i][j];
#endif
  }
  double S = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      S += A[i][j] * (i + 1) + B[i][j];
  printf("%.17g\n", S);
  return 0;
}
