// A clo layout trial prices the SCoPs clo compiles (issue 10). PolyBench
// symm's kernel carries temp2 through its k loop: clo (no scalar
// expansion) keeps that nest in its order, which walks C[k][j] down its
// columns, so the vote stores C column-major; but the trial once modeled
// the nest with dro's scalar expansion, a schedule clo never runs, and
// kept that layout at an estimated 0.04x of row-major's I/O (8.5x measured
// at 1/2 of the data). Priced on clo's own SCoPs, C stays row-major.
// RUN: %clang_iopoly -O2 -c -fplugin-arg-iopoly-mode=clo -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLO
// RUN: %clang_iopoly -O2 -c -fplugin-arg-iopoly-mode=lower -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VOTE
// CLO: remark: file layout of 'C': 0,1 (row-major), kept by the cost model of Polly's schedule (clo) ({{.*}}): the vote of the source order prefers 1,0 (column-major)
// VOTE: remark: file layout of 'C': 1,0 (column-major), most accesses
#include <stdlib.h>

#define M 200
#define N 240

static void kernel(double alpha, double beta, double C[M][N], double A[M][M], double B[M][N]) {
#pragma iopoly disk_resident(C, A, B)
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}

int main(void) {
  double(*C)[N] = malloc(sizeof(double[M][N]));
  double(*A)[M] = malloc(sizeof(double[M][M]));
  double(*B)[N] = malloc(sizeof(double[M][N]));
#pragma iopoly disk_resident(C, A, B)
  if (!C || !A || !B)
    return 1;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      C[i][j] = (double)((i + j) % 100) / M;
      B[i][j] = (double)((N + i - j) % 100) / M;
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      A[i][j] = (double)((i + j) % 100) / M;
  kernel(1.5, 1.2, C, A, B);
  double s = 0;
  for (int i = 0; i < M; i++)
    s += C[i][i % N];
  free(C);
  free(A);
  free(B);
  return s > 0;
}
