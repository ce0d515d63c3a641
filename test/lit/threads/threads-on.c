// -fplugin-arg-iopoly-threads=on: the loops Polly proves parallel in the
// dro-wp code call the runtime's task scheduler (no OpenMP library), a
// remark counts them, the program prints what mode=off prints at 1 and 4
// threads; the option needs a dro mode and takes on/off.
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-threads=on -fplugin-arg-iopoly-stripe=4K \
// RUN:   -fplugin-arg-iopoly-disks=4 -Rpass=iopoly -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-threads=on -fplugin-arg-iopoly-stripe=4K \
// RUN:   -fplugin-arg-iopoly-disks=4 %s -o %t.thr
// RUN: %t.off > %t.off.out
// RUN: rm -rf %t.data && env IOPOLY_THREADS=1 %iopoly_run %t.thr > %t.1.out
// RUN: cmp %t.off.out %t.1.out
// RUN: rm -rf %t.data && env IOPOLY_THREADS=4 IOPOLY_SCHED=naive %iopoly_run %t.thr > %t.4.out
// RUN: cmp %t.off.out %t.4.out
// RUN: not %clang_iopoly -c -fplugin-arg-iopoly-threads=on -fplugin-arg-iopoly-mode=lower %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MODE
// RUN: not %clang_iopoly -c -fplugin-arg-iopoly-threads=many %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
//
// REMARK: remark: threads: {{[1-9][0-9]*}} loop(s) that Polly's dependences prove parallel run as tasks on IOPOLY_THREADS threads
// IR: call void @__iopoly_par_start(
// IR-NOT: GOMP_
// MODE: error: -fplugin-arg-iopoly-threads=on runs the locality sets of restructured code: it needs mode=dro-l or mode=dro-wp
// VALUE: error: invalid value 'many' for iopoly option 'threads' (expected on or off)
#include <stdio.h>
#define N 256
double A[N][N];
double colsum[N];
#pragma iopoly disk_resident(A)

int main(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = (double)((i * 13 + j * 7) % 101);
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      colsum[j] += A[i][j];
  double s = 0;
  for (int j = 0; j < N; ++j)
    s += colsum[j];
  printf("%.1f\n", s);
  return 0;
}
