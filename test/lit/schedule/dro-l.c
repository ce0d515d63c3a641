// mode=dro-l / -passes=iopoly-dro-l: disk-reuse restructuring of each loop
// nest alone. A column-wise sum over a row-major disk-resident array visits
// every stripe in pieces; dro-l tiles it by its data (remark, and
// Polly's generated loops in the IR), and the dro-l build prints what the
// mode=off build prints. The IR for opt is the mode=off IR with the
// disk-resident marker the plugin's iopoly-mark pass would attach.
// RUN: %clang_iopoly -O1 -fplugin-arg-iopoly-mode=dro-l -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 \
// RUN:   -Rpass=iopoly -Rpass-missed=iopoly -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: %clang_iopoly -O1 -fplugin-arg-iopoly-mode=off -S -emit-llvm %s -o - \
// RUN:   | sed -e 's/^\(@A = .*\)$/\1, !iopoly.disk_resident !{!"A"}/' > %t.ll
// RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=4 -passes=iopoly-dro-l -pass-remarks=iopoly -S %t.ll \
// RUN:   -o %t.drol.ll 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: FileCheck %s --check-prefix=IR < %t.drol.ll
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-mode=dro-l -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s \
// RUN:   -o %t.drol
// RUN: %t.off > %t.off.out
// RUN: rm -rf %t.data && %iopoly_run %t.drol > %t.drol.out
// RUN: cmp %t.off.out %t.drol.out
//
// MODE: remark: dro-l: tiled the loops here by their data: {{[0-9]+}} tiled group(s)
// PASS: remark: {{.*}}dro-l: tiled the loops here by their data
// IR-LABEL: define {{.*}} @sums(
// IR: polly.
#include <stdio.h>
#define N 256
double A[N][N];
double colsum[N];
#pragma iopoly disk_resident(A)

__attribute__((noinline)) void sums(void) {
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      colsum[j] += A[i][j];
}

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = (i * 13 + j * 7) % 101 * 0.01;
  sums();
  double S = 0;
  for (int j = 0; j < N; ++j)
    S += colsum[j] * (j + 1);
  printf("%.17g\n", S);
  return 0;
}
