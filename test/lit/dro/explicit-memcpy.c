// A time-stepped stencil whose copy-back is an explicit memcpy of each row,
// and whose boundary rows are cleared with memset. Polly models such calls
// as accesses of bytes it cannot relate to the arrays' doubles and would
// drop the whole time loop; in the Polly modes they become loops over the
// elements (their offsets and lengths are whole doubles), so the time loop
// is one SCoP and dro-wp reads each stripe about once.
//
// UBSan's pointer-overflow checks (the sanitizer builds compile programs
// with -fsanitize=undefined) are calls Polly cannot model.
// UNSUPPORTED: sanitize
//
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 \
// RUN:   -Rpass=iopoly -Rpass-missed=iopoly -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=lower %s -o %t.lower
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=clo %s -o %t.clo
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t.wp
// RUN: rm -rf %t.data && mkdir -p %t.data && %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 IOPOLY_STATS=%t.lower.stats %t.lower > %t.lower.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 %t.clo > %t.clo.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_THRASH=0 IOPOLY_STATS=%t.wp.stats %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.lower.out
// RUN: cmp %t.off.out %t.clo.out
// RUN: cmp %t.off.out %t.wp.out
// RUN: FileCheck %s --check-prefix=LOWER < %t.lower.stats
// RUN: FileCheck %s --check-prefix=WP < %t.wp.stats
//
// REMARK-NOT: leaves the loops here
// REMARK: explicit-memcpy.c:[[@LINE+15]]:{{[0-9]+}}: remark: dro-wp: tiled the loops here
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
      memcpy(&A[i][1], &B[i][1], (N - 2) * sizeof(double));
  }
  double S = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      S += A[i][j] * (i + 1) + B[i][j];
  printf("%.17g\n", S);
  return 0;
}
