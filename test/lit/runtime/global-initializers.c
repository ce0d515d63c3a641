// Valid C that takes the address of a disk-resident global in another
// global's initializer compiles and runs: a file-scope `double *gp = A;`, a
// struct member, and a local `double *arr[2] = {A, A + 100};` (a private
// constant clang copies). The pointers are set at run time, right after the
// arrays (Transform/DiskGlobalRefs.cpp); named in a pragma, they are
// followed like any disk-resident pointer. Output equals mode=off's at -O0
// and -O2.
// RUN: %iopoly_clang -O0 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %t.off > %t.off.out
// RUN: %iopoly_clang -O0 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t.o0
// RUN: rm -rf %t.data && %iopoly_run %t.o0 > %t.o0.out
// RUN: cmp %t.off.out %t.o0.out
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t.o2
// RUN: rm -rf %t.data && %iopoly_run %t.o2 > %t.o2.out
// RUN: cmp %t.off.out %t.o2.out
// RUN: FileCheck %s < %t.o2.out
// An address turned into an integer cannot be set at run time: an error
// naming both globals, with the location (debug information).
// RUN: not %clang_iopoly -O1 -g -DBAD -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
//
// CHECK: 2 5 3 9 1 1
// BAD: error: iopoly: {{.*}}global-initializers.c:{{[0-9]+}}: the address of disk-resident array 'A' is used in the initializer of 'bad' in a form that cannot be set at run time
#include <stdint.h>
#include <stdio.h>
double A[5000] = {1, 2, 3};
double B[700];
#pragma iopoly disk_resident(A, B)
double *gp = A;
struct holder { int n; double *p; } gs = {7, B + 3};
double *gq = &A[100];
#ifdef BAD
uintptr_t bad = (uintptr_t)A + 8;
#endif

int main(void) {
  double *arr[2] = {A, A + 100};
  double *p = gp, *q = arr[1], *r = gs.p, *s = gq;
#pragma iopoly disk_resident(p, q, r, s)
  A[100] = 5;
  B[3] = 9;
  printf("%g %g %g %g %d %d\n", p[1], q[0], p[2], r[0], arr[0] == A, s == q);
  return 0;
}
