// An LU decomposition with its scalar w, then the two substitutions
// (PolyBench's ludcmp shape). Polly maps w onto A[i][j] (DeLICM), but with
// the dependences simplified by the loops' bounds, as Polly gives them to
// its scheduler by default, the scheduler finds no new schedule and the
// original order walks a column of A for every (i, j). clo and the dro
// modes then ask it again with the exact dependences: it tiles the loops.
// The user's own choice of that option still wins. Results are those of
// the original program in every mode.
// UBSan's checks (the sanitizer builds compile programs with
// -fsanitize=undefined) are calls Polly cannot model: the loops become
// other SCoPs, which the first attempt already schedules.
// UNSUPPORTED: sanitize
//
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=lower %s -o %t.lower
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=clo -Rpass=iopoly %s -o %t.clo 2>&1 | FileCheck %s --check-prefix=CLO
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=clo -mllvm -polly-opt-simplify-deps=yes -Rpass-missed=iopoly %s -o %t.user 2>&1 | FileCheck %s --check-prefix=USER
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -Rpass=iopoly %s -o %t.wp 2>&1 | FileCheck %s --check-prefix=DRO
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=clo -mllvm -polly-schedule-computeout=1 -Rpass-missed=iopoly %s -c -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUOTA
// RUN: %iopoly_run %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_STATS=%t.lower.stats %t.lower > %t.lower.out
// RUN: cmp %t.off.out %t.lower.out
// RUN: FileCheck %s --check-prefix=MANY < %t.lower.stats
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_STATS=%t.clo.stats %t.clo > %t.clo.out
// RUN: cmp %t.off.out %t.clo.out
// RUN: FileCheck %s --check-prefix=FEW < %t.clo.stats
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_STATS=%t.wp.stats %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.wp.out
// RUN: FileCheck %s --check-prefix=FEW < %t.wp.stats
//
// CLO: remark: clo: Polly's isl scheduler applied a new schedule {{.*}}(from the exact dependences: simplified by the loops' bounds, as Polly gives them by default, they let it find no new schedule)
// USER: remark: clo: Polly's isl scheduler kept the original schedule of the loops here
// The scheduler's quota of operations (Polly's polly-schedule-computeout):
// when it stops the scheduler, the remark says so.
// QUOTA: remark: clo: Polly's isl scheduler kept the original schedule of the loops here (it stopped at its quota of 1 operations; -mllvm -polly-schedule-computeout=N raises it, at the cost of compile time)
// DRO: remark: dro-wp: tiled the loops here in Polly's schedule: {{.*}}versions: Polly's schedule in tiles of
// At 16 stripes of 4 KiB (the matrix is 50), the original order fetches
// about 318,000 stripes, clo about 27,000 and dro-wp about 13,000.
// MANY: "stripe_fetches":{{[1-9][0-9][0-9][0-9][0-9][0-9]}},
// FEW: "stripe_fetches":{{[1-9][0-9]?[0-9]?[0-9]?[0-9]?}},
#include <iopoly.h>
#include <stdio.h>

#define N 160

static double A[N][N], b[N], x[N], y[N];
#pragma iopoly disk_resident(A, b, x, y)

int main(void) {
  for (int i = 0; i < N; i++) {
    b[i] = (i + 1) / (double)N / 2.0 + 4;
    for (int j = 0; j < N; j++)
      A[i][j] = i == j ? N : (double)((i * 7 + j * 3) % 11) / N;
  }
  double w;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      w = A[i][j];
      for (int k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (int j = i; j < N; j++) {
      w = A[i][j];
      for (int k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (int i = 0; i < N; i++) {
    w = b[i];
    for (int j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (int i = N - 1; i >= 0; i--) {
    w = y[i];
    for (int j = i + 1; j < N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
  double S = 0;
  for (int i = 0; i < N; i++)
    S += x[i] * (i + 1);
  printf("%.17e\n", S);
  return 0;
}
