// The same source gives the same code on every compile (reproducible
// builds): the releases of the windows at the exits of loop nests and at
// returns are emitted in an order that does not depend on where the
// compiler's objects happen to sit in memory (they once followed pointer
// order, and two compiles of PolyBench's trisolv differed; after Polly has
// run, memory is reused and the order changes from compile to compile).
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mode=clo %s -o %t.clo.0.ll
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mode=clo %s -o %t.clo.1.ll
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mode=clo %s -o %t.clo.2.ll
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mode=clo %s -o %t.clo.3.ll
// RUN: diff %t.clo.0.ll %t.clo.1.ll
// RUN: diff %t.clo.0.ll %t.clo.2.ll
// RUN: diff %t.clo.0.ll %t.clo.3.ll
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mode=dro-wp %s -o %t.dro-wp.0.ll
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mode=dro-wp %s -o %t.dro-wp.1.ll
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mode=dro-wp %s -o %t.dro-wp.2.ll
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mode=dro-wp %s -o %t.dro-wp.3.ll
// RUN: diff %t.dro-wp.0.ll %t.dro-wp.1.ll
// RUN: diff %t.dro-wp.0.ll %t.dro-wp.2.ll
// RUN: diff %t.dro-wp.0.ll %t.dro-wp.3.ll
// RUN: FileCheck %s < %t.clo.0.ll
// CHECK: call void @__iopoly_window_release
#define N 512
double A[N][N], B[N][N], C[N][N], D[N], E[N];
#pragma iopoly disk_resident(A, B, C, D, E)

void nests(int n, int flag) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      A[i][j] = B[j][i] + C[i][j] * D[j];
  if (flag)
    return;
  for (int i = 0; i < n; ++i) {
    E[i] = 0;
    for (int j = 0; j < n; ++j)
      E[i] += A[j][i] * B[i][j] - C[j][i];
  }
  for (int i = 1; i < n; ++i)
    D[i] = D[i - 1] + E[i] * A[i][i];
}
