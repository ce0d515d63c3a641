// mode=clo is Polly's isl scheduler with tiling, without its matrix-product
// packing: that copies operands into stack arrays the stripe buffer does not
// account for (three products overflowed an 8 MiB stack in PolyBench's 3mm).
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=clo -S -emit-llvm %s -o - | FileCheck %s
// The explicit Polly option still wins:
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=clo -mllvm -polly-pattern-matching-based-opts=true -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PACKED
// CHECK-NOT: alloca [{{[0-9]+}} x [{{[0-9]+}} x [{{[0-9]+}} x double]]]
// CHECK: define
// PACKED: alloca [{{[0-9]+}} x [{{[0-9]+}} x [{{[0-9]+}} x double]]]
#define N 512
void matmul(double C[N][N], double A[N][N], double B[N][N]) {
#pragma iopoly disk_resident(C, A, B)
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        C[i][j] += A[i][k] * B[k][j];
}
