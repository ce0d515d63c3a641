// After Polly's code generation, mode=clo runs LLVM's function
// simplification again with full unrolling allowed, as Polly's own pipeline
// does: the 32-iteration point loop of each tile (s) is unrolled and the
// loop around it (p) vectorized. Without it this doitgen-shaped contraction
// ran 3.3x slower than Polly's build (bench/results/overhead.md).
// RUN: %clang_iopoly -O3 -fplugin-arg-iopoly-mode=clo -S -emit-llvm %s -o - | FileCheck %s
// Full unrolling stays off before Polly (it would multiply the statements
// Polly sees), and an explicit option still wins:
// RUN: %clang_iopoly -O3 -fplugin-arg-iopoly-mode=clo -mllvm -unroll-full-max-count=0 -S -emit-llvm %s -o - \
// RUN:   | FileCheck %s --check-prefix=HELD
// CHECK-LABEL: define {{.*}}@contract(
// CHECK-COUNT-32: call <2 x double> @llvm.fmuladd.v2f64
// HELD-LABEL: define {{.*}}@contract(
// HELD-NOT: @llvm.fmuladd.v2f64
// HELD: ret void
#define N 160
void contract(double sum[N], double A[N], double C4[N][N]) {
#pragma iopoly disk_resident(sum, A, C4)
  for (int p = 0; p < N; p++) {
    sum[p] = 0.0;
    for (int s = 0; s < N; s++)
      sum[p] += A[s] * C4[s][p];
  }
}
