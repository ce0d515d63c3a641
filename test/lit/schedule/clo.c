// mode=clo / -passes=iopoly-clo: Polly's isl scheduler, with a remark that
// says whether it changed a SCoP's schedule. The blocked product gets a new
// schedule (Polly's generated loops appear in the IR), a plain scaling loop
// keeps its own, and the clo build prints what the mode=off build prints.
// RUN: %clang_iopoly -O1 -fplugin-arg-iopoly-mode=clo -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 \
// RUN:   -Rpass=iopoly -Rpass-missed=iopoly -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: %clang_iopoly -O1 -fplugin-arg-iopoly-mode=off -S -emit-llvm %s -o %t.ll
// RUN: %opt_iopoly -passes=iopoly-clo -pass-remarks=iopoly -pass-remarks-missed=iopoly -S %t.ll -o %t.clo.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PASS
// RUN: FileCheck %s --check-prefix=IR < %t.clo.ll
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-mode=clo -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t.clo
// RUN: %t.off > %t.off.out
// RUN: rm -rf %t.data && %iopoly_run %t.clo > %t.clo.out
// RUN: cmp %t.off.out %t.clo.out
//
// MODE: remark: clo: Polly's isl scheduler applied a new schedule (tiling, interchange or fusion) to the loops here, with register tiling of 1 band [-Rpass=iopoly]
// MODE: remark: clo: Polly's isl scheduler kept the original schedule of the loops here [-Rpass-missed=iopoly]
// PASS: remark: {{.*}}clo: Polly's isl scheduler applied a new schedule
// PASS: remark: {{.*}}clo: Polly's isl scheduler kept the original schedule
// IR-LABEL: define {{.*}} @mm(
// IR: polly.loop_header
#include <stdio.h>
#define N 96
double A[N][N], B[N][N], C[N][N];
#pragma iopoly disk_resident(A, B, C)

__attribute__((noinline)) void mm(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        C[i][j] += A[i][k] * B[k][j];
}

__attribute__((noinline)) void scale(void) {
  for (int i = 0; i < N; ++i)
    C[i][0] = C[i][0] * 0.5;
}

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      A[i][j] = (i * 7 + j) % 13 * 0.25;
      B[i][j] = (i + 3 * j) % 11 * 0.5;
    }
  mm();
  scale();
  double S = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      S += C[i][j] * (i + 1);
  printf("%.17g\n", S);
  return 0;
}
