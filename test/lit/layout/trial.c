// Layout trials (issue 10): in clo, dro-l and dro-wp a layout the vote of
// the source order chose is kept only if the cost model of the mode's
// schedule, run on a copy of the module with that layout, does not
// estimate it worse than row-major on some plausible run. syrk's source
// order walks Q down its columns, but the tiles of Polly and of dro-wp read
// it along its rows: the trial keeps it row-major (mode=lower runs the
// source order, and no trial is made). trmm's factors are read down their
// columns by every schedule: the trial confirms the vote. With
// layout-trial=off the vote alone decides.
// RUN: %clang_iopoly -O2 -c -DSYRK=1 -fplugin-arg-iopoly-mode=dro-wp -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SYRK
// RUN: %clang_iopoly -O2 -c -DSYRK=1 -fplugin-arg-iopoly-mode=clo -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SYRK-CLO
// RUN: %clang_iopoly -O2 -c -DSYRK=1 -fplugin-arg-iopoly-mode=lower -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VOTE
// RUN: %clang_iopoly -O2 -c -DSYRK=1 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-layout-trial=off -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VOTE
// RUN: %clang_iopoly -O2 -c -DSYRK=0 -fplugin-arg-iopoly-mode=dro-wp -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRMM
// RUN: %clang_iopoly -O2 -c -DSYRK=1 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-layout=Q:1,0 -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: not %clang_iopoly -O2 -c -fplugin-arg-iopoly-layout-trial=maybe %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// SYRK: remark: file layout of 'Q': 0,1 (row-major), kept by the cost model of dro-wp's schedule ({{[0-9]+}} plausible runs: {{.*}}): the vote of the source order prefers 1,0 (column-major), but stored so the estimate is {{[0-9.]+}}x row-major's I/O with {{.*}} of the data ({{[0-9.]+}}x on the geometric mean; a layout may lose at most 2% on any plausible run)
// SYRK-CLO: remark: file layout of 'Q': 0,1 (row-major), kept by the cost model of Polly's schedule (clo)
// VOTE: remark: file layout of 'Q': 1,0 (column-major), most accesses (weighted by how many times their statements run) are stride-1 in the file (statement
// TRMM-DAG: remark: file layout of 'P': 1,0 (column-major), most accesses {{.*}} are stride-1 in the file; the cost model of dro-wp's schedule ({{.*}}) estimates {{0\.[0-9]+}}x of row-major's I/O on the geometric mean with the other layouts chosen here, at most {{(0\.[0-9]+|1\.0[0-2])}}x
// TRMM-DAG: remark: file layout of 'Q': 1,0 (column-major), most accesses {{.*}}; the cost model of dro-wp's schedule ({{.*}}) estimates {{0\.[0-9]+}}x of row-major's I/O
// FORCED: remark: file layout of 'Q': 1,0 (column-major), requested by -fplugin-arg-iopoly-layout (statement
// BAD: error: invalid value 'maybe' for iopoly option 'layout-trial' (expected on or off)
#include <stdlib.h>

#if SYRK
#define N 240
#define M 200
static void kernel(double P[N][N], double Q[N][M]) {
#pragma iopoly disk_resident(P, Q)
  for (int i = 0; i < N; i++) {
    for (int j = 0; j <= i; j++)
      P[i][j] *= 1.5;
    for (int k = 0; k < M; k++)
      for (int j = 0; j <= i; j++)
        P[i][j] += 0.5 * Q[i][k] * Q[j][k];
  }
}
#else
#define N 200
#define M 240
static void kernel(double P[N][N], double Q[N][M]) {
#pragma iopoly disk_resident(P, Q)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      for (int k = i + 1; k < N; k++)
        Q[i][j] += P[k][i] * Q[k][j];
      Q[i][j] = 1.5 * Q[i][j];
    }
}
#endif

int main(void) {
  double(*P)[N] = malloc(sizeof(double[N][N]));
  double(*Q)[M] = malloc(sizeof(double[N][M]));
#pragma iopoly disk_resident(P, Q)
  if (!P || !Q)
    return 1;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      P[i][j] = i + j;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      Q[i][j] = i - j;
  kernel(P, Q);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += Q[i][i % M];
  free(P);
  free(Q);
  return s > 0;
}
