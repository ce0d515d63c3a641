// Loop-carried scalars (PolyBench symm's `temp2`, deriche's recurrences)
// get one copy per iteration of the loops around them in dro-wp, so that
// they no longer chain every iteration to the next. Only where every read
// keeps its value: not a scalar read after the loops, not one whose first
// read sees a value from before them. Results are those of the original
// program, in every mode, with and without the expansion. A running sum
// whose last value is read after its loops keeps that value's scalar
// (its partial sums per row may be expanded: the same values either way).
//
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -Rpass-analysis=iopoly %s -o %t.wp 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-expand-scalars=off -Rpass-analysis=iopoly %s -o %t.noexp 2>&1 | FileCheck %s --allow-empty --check-prefix=OFF
// RUN: %iopoly_run %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.wp.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K %t.noexp > %t.noexp.out
// RUN: cmp %t.off.out %t.noexp.out
//
// OFF-NOT: gave
#include <iopoly.h>
#include <stdio.h>

#define M 96
#define N 160

static double A[M][M], B[M][N], C[M][N], D[M][N];
#pragma iopoly disk_resident(A, B, C, D)

double sink;

int main(void) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      A[i][j] = (double)((i + j) % 100) / M;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      B[i][j] = (double)((N + i - j) % 100) / N;
      C[i][j] = (double)((i * j + 3) % 100) / M;
    }
  double temp2;
  for (int i = 0; i < M; i++)
    // symm: temp2 (the phi in the k loop, its value after it) gets a copy
    // per j.
    // REMARK: scalar-expansion.c:[[@LINE+1]]:5: remark: gave {{[0-9]+}} scalars carried through these loops one copy per iteration of this loop
    for (int j = 0; j < N; j++) {
      temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += 1.5 * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = 1.2 * C[i][j] + 1.5 * B[i][j] * A[i][i] + 1.5 * temp2;
    }
  // Causal filter down each column (deriche's second pass): a copy of the
  // recurrences per column.
  // REMARK: scalar-expansion.c:[[@LINE+1]]:3: remark: gave {{[0-9]+}} scalars carried through these loops one copy per iteration of this loop
  for (int j = 0; j < N; j++) {
    double ym1 = 0, ym2 = 0, xm1 = 0;
    for (int i = 0; i < M; i++) {
      D[i][j] = 0.5 * C[i][j] + 0.25 * xm1 + 0.125 * ym1 - 0.0625 * ym2;
      xm1 = C[i][j];
      ym2 = ym1;
      ym1 = D[i][j];
    }
  }
  // A running sum whose last value is used after the loops.
  double s = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      s += D[i][j];
  sink = s;
  double S = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      S += (C[i][j] + D[i][j]) * (i + 1) + j;
  printf("%.17e %.17e\n", S, sink);
  return 0;
}
