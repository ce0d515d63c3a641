// Loops over disk-resident arrays that Polly cannot model keep their order
// in every Polly mode; a -Rpass-missed=iopoly remark per loop nest says why
// in the terms of the source (a memmove, a call, an early exit), and the
// program's results do not change.
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=dro-wp -Rpass-missed=iopoly -c %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,WP
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=clo -Rpass-missed=iopoly -c %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,CLO
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=dro-wp -Rpass-analysis=iopoly -c %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ANALYSIS
// RUN: %clang_iopoly -O2 -fno-math-errno -fplugin-arg-iopoly-mode=dro-wp -Rpass-missed=iopoly -c %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOERRNO
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -lm -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp %s -lm -o %t.wp
// RUN: rm -rf %t.data && mkdir -p %t.data && %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data && %iopoly_run IOPOLY_THRASH=0 %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.wp.out
//
// UBSan's checks (the sanitizer builds) are calls: the reasons differ there.
// UNSUPPORTED: sanitize
#include <stdio.h>
#include <math.h>
#include <string.h>
#define N 128
double A[N][N], B[N][N];
#pragma iopoly disk_resident(A, B)

// A memmove within a row (its source and destination overlap; a memcpy
// would become a loop of elements): Polly drops the whole time loop.
// WP: unmodelled.c:[[@LINE+3]]:3: remark: dro-wp leaves the loops here in their order (they access 'A'): Polly built a model of them but dropped it: {{.*}}; a memmove on 'A' at line [[@LINE+8]] accesses it as bytes, which Polly cannot relate to its elements: write it as a loop
// CLO: unmodelled.c:[[@LINE+2]]:3: remark: clo leaves the loops here in their order
__attribute__((noinline)) void smooth(int T) {
  for (int t = 0; t < T; ++t) {
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; ++i)
      memmove(&A[i][0], &A[i][1], (N - 1) * sizeof(double)); // shift row i left
  }
}

// A call Polly cannot see into.
double opaque(double) __attribute__((noinline));
// CHECK: unmodelled.c:[[@LINE+2]]:3: remark: {{.*}} leaves the loops here in their order (they access 'A'): Polly cannot model them: they call 'opaque' at line [[@LINE+4]], whose effect on memory Polly cannot see
__attribute__((noinline)) void apply(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      B[j][i] = opaque(A[i][j]);
}

// An exit that depends on the data.
// CHECK: unmodelled.c:[[@LINE+2]]:3: remark: {{.*}} leaves the loops here in their order (they access 'A'): Polly cannot model them: a condition at line [[@LINE+3]] depends on data
__attribute__((noinline)) void scale_until_negative(void) {
  for (int i = 0; i < N; ++i) {
    if (A[i][0] < 0)
      break;
    for (int j = 0; j < N; ++j)
      B[i][j] *= 2;
  }
}

// sqrt may set errno: a call, unless -fno-math-errno makes it pure.
// CHECK: unmodelled.c:[[@LINE+3]]:3: remark: {{.*}} leaves the loops here in their order (they access 'B'): Polly cannot model them: they call 'sqrt' at line [[@LINE+5]], which may set errno (-fno-math-errno makes it a pure function Polly can model)
// NOERRNO-NOT: line [[@LINE+4]]
__attribute__((noinline)) void roots(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      B[i][j] = sqrt(B[i][j] + 1.0);
}

// Printing an array is no missed optimization: an analysis remark.
// ANALYSIS: unmodelled.c:[[@LINE+2]]:3: remark: dro-wp leaves the loops here in their order (they access 'A'): they write output with 'printf' at line [[@LINE+3]] [-Rpass-analysis=iopoly]
__attribute__((noinline)) void dump(void) {
  for (int i = 0; i < N; i += 17)
    printf("%g\n", A[i][i]);
}
// CHECK-NOT: leaves the loops here

double opaque(double x) {
  static volatile double Scale = 2;
  return x * Scale;
}

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = (double)((i * 7 + j * 3) % 29);
  smooth(3);
  apply();
  scale_until_negative();
  roots();
  dump();
  double S = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      S += B[i][j] * (i + 1) + A[i][j];
  printf("%.17g\n", S);
  return 0;
}
