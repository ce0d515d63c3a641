// Loops inside a loop Polly cannot model (the k loop of a Gram-Schmidt
// factorisation calls sqrt, which may set errno) are SCoPs of their own that
// take k as a parameter: their subscripts and bounds depend on it. The bytes
// they touch and the footprint models of their versions are computed for
// one value of k, the middle of the range the arrays' bounds allow
// (Analysis/ScopParams.h). Without that they had no model: dro-wp had no
// Polly-schedule versions and ran the original order, which walks the
// columns of A and Q once per k (about 200,000 fetches here); with it, the
// run-time choice takes Polly's schedule in small tiles (under 20,000).
//
// UNSUPPORTED: sanitize
//
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off -lm
// RUN: rm -rf %t.data && mkdir -p %t.data && %iopoly_run IOPOLY_THRASH=0 %t.off > %t.off.out
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-versions=all -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 \
// RUN:   -Rpass=iopoly -Rpass-missed=iopoly -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-versions=all -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 \
// RUN:   %s -o %t.wp -lm
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=48K IOPOLY_THRASH=0 IOPOLY_STATS=%t.wp.stats %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.wp.out
// RUN: FileCheck %s --check-prefix=WP < %t.wp.stats
//
// REMARK: outer-loop-params.c:[[@LINE+12]]:{{[0-9]+}}: remark: dro-wp leaves the loops here in their order {{.*}}'sqrt'
// REMARK: remark: dro-wp: tiled the loops here {{.*}}; versions: {{.*}}Polly's schedule in tiles of 4, 8, 16, 32{{(, Polly's schedule with rows innermost in tiles of [0-9, ]+)?}}, Polly's schedule as in mode=clo (for data that fit the buffer{{(, and wherever its model is the cheapest)?}}) and the original order
// WP: "stripe_fetches":{{[0-9]?[0-9][0-9][0-9][0-9]}},
#include <iopoly.h>
#include <math.h>
#include <stdio.h>

#define M 64
#define N 96

static void kernel(double A[M][N], double R[N][N], double Q[M][N]) {
#pragma iopoly disk_resident(A, R, Q)
  for (int k = 0; k < N; k++) {
    double nrm = 0;
    for (int i = 0; i < M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (int i = 0; i < M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (int j = k + 1; j < N; j++) {
      R[k][j] = 0;
      for (int i = 0; i < M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (int i = 0; i < M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}

int main(void) {
  double (*A)[N] = iopoly_alloc("A", sizeof(double) * M * N);
  double (*R)[N] = iopoly_alloc("R", sizeof(double) * N * N);
  double (*Q)[N] = iopoly_alloc("Q", sizeof(double) * M * N);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11 + 1) / 11 + (i == j);
  kernel(A, R, Q);
  double s = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      s += A[i][j] * (i + 1) + Q[i][j] * (j + 1);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += R[i][j] * (i + j + 1);
  printf("%.17g\n", s);
  return 0;
}
