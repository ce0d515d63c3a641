// A disk-resident global starts from its initializer every run, so a rerun
// with another IOPOLY_STRIPE, IOPOLY_DISKS or array size creates it again
// (with a warning); files of the same name that a global did not make
// (iopoly_open, iopoly_alloc: data kept on purpose) are refused with the
// command that removes them.
// RUN: rm -rf %t.data
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -DN=6000 %s -o %t.bigger
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -DMAKE_API %s -o %t.api
// RUN: %iopoly_run %t 2>%t.err | FileCheck %s --check-prefix=SUM
// RUN: %iopoly_run %t 2>%t.err | FileCheck %s --check-prefix=SUM
// RUN: count 0 < %t.err
// RUN: %iopoly_run IOPOLY_STRIPE=8K %t 2>%t.err | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s --check-prefix=STRIPE < %t.err
// RUN: %iopoly_run IOPOLY_DISKS=2 %t 2>%t.err | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s --check-prefix=DISKS < %t.err
// RUN: not ls %t.data/disk3/G.iop
// RUN: %iopoly_run %t.bigger 2>%t.err | FileCheck %s --check-prefix=BIGGER
// RUN: FileCheck %s --check-prefix=DIMS < %t.err
// RUN: rm -rf %t.data
// RUN: %iopoly_run %t.api
// RUN: not --crash %iopoly_run %t 2>&1 | FileCheck %s --check-prefix=KEPT
//
// STRIPE: warning: disk-resident global 'G': the files of an earlier run have other settings ({{.*}}stripe size (IOPOLY_STRIPE): the file has 4096, the current setting is 8192); they are replaced
// DISKS: warning: disk-resident global 'G': the files of an earlier run have other settings ({{.*}}: the file has 8192, the current setting is 4096); they are replaced
// DIMS: warning: disk-resident global 'G': the files of an earlier run have other settings ({{.*}}: the file has 5000, the current setting is 6000)
// SUM: sum 1.24975e+07
// BIGGER: sum 1.7997e+07
// KEPT: fatal: cannot create disk-resident global 'G'
// KEPT-SAME: dims: the file has 77, the current setting is 5000
// KEPT-SAME: The files were not made by a disk-resident global
// KEPT-SAME: remove them with 'iopoly-fsck G --remove'
#include <iopoly.h>
#include <stdio.h>
#ifndef N
#define N 5000
#endif
#ifdef MAKE_API
int main(void) {
  size_t Dims[1] = {77};
  iopoly_array *A = iopoly_open("G", 8, 1, Dims, IOPOLY_CREATE);
  if (!A) {
    puts(iopoly_last_error());
    return 1;
  }
  return iopoly_close(A);
}
#else
double G[N] = {1.0, 2.0};
#pragma iopoly disk_resident(G)
int main(void) {
  double S = 0;
  for (int I = 0; I < N; ++I) {
    G[I] += I;
    S += G[I];
  }
  printf("sum %g\n", S);
  return 0;
}
#endif
