// threads=on restructures every SCoP of a function, also one that ends
// where the next begins (PolyBench 3mm's products, here two products after
// an initialisation). The run-time version choice of a SCoP goes right
// before its loops, in a block split off for it: in the block that enters
// the SCoP it made the SCoP before it invalid when Polly verified its
// regions again, and that SCoP kept its order (3mm at 1/8 of its data:
// 2,552,201 stripe fetches against 1,641 for the one-thread build).
// Results are those of mode=off at 1 and 2 threads.
//
// UBSan's pointer-overflow checks (the sanitizer builds compile programs
// with -fsanitize=undefined) are calls Polly cannot model: the loops stay
// in their order there.
// UNSUPPORTED: sanitize
//
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-threads=on -Rpass=iopoly %s -o %t.thr \
// RUN:   2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %iopoly_run %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_THREADS=1 IOPOLY_BUFFER=64K %t.thr > %t.1.out
// RUN: cmp %t.off.out %t.1.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_THREADS=2 IOPOLY_BUFFER=64K %t.thr > %t.2.out
// RUN: cmp %t.off.out %t.2.out
//
// REMARK-DAG: adjacent-scops.c:[[@LINE+11]]:{{[0-9]+}}: remark: dro-wp: tiled the loops here
// REMARK-DAG: adjacent-scops.c:[[@LINE+22]]:{{[0-9]+}}: remark: dro-wp: tiled the loops here
// REMARK-DAG: adjacent-scops.c:[[@LINE+27]]:{{[0-9]+}}: remark: dro-wp: tiled the loops here
#include <iopoly.h>
#include <stdio.h>

#define N 96

static void init(int n, double A[N][N], double B[N][N], double C[N][N], double D[N][N]) {
#pragma iopoly disk_resident(A, B, C, D)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n;
      B[i][j] = (double)((i + 2 * j) % n) / n;
      C[i][j] = (double)((3 * i + j) % n) / n;
      D[i][j] = (double)((i * j + 5) % n) / n;
    }
}

static void kernel(int n, double E[N][N], double A[N][N], double B[N][N], double F[N][N], double C[N][N],
                   double D[N][N]) {
#pragma iopoly disk_resident(E, A, B, F, C, D)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      E[i][j] = 0;
      for (int k = 0; k < n; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      F[i][j] = 0;
      for (int k = 0; k < n; k++)
        F[i][j] += C[i][k] * D[k][j];
    }
}

int main(void) {
  size_t Bytes = sizeof(double) * N * N;
  double(*A)[N] = iopoly_alloc("A", Bytes), (*B)[N] = iopoly_alloc("B", Bytes);
  double(*C)[N] = iopoly_alloc("C", Bytes), (*D)[N] = iopoly_alloc("D", Bytes);
  double(*E)[N] = iopoly_alloc("E", Bytes), (*F)[N] = iopoly_alloc("F", Bytes);
  init(N, A, B, C, D);
  kernel(N, E, A, B, F, C, D);
  double S = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      S += E[i][j] * (i + 1) + F[i][j] * (j + 1);
  printf("%.10e\n", S);
  return 0;
}
