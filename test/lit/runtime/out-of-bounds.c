// An out-of-bounds index into a disk-resident global stops the program with
// a message naming the array and the offset, instead of a bare SIGSEGV or an
// access that silently lands in another array: A[-1] on the first global
// (its guard gap), B[-1] (the gap between A and B), A just past its end, and
// indices far out of bounds, which land in the free part of the arena. An
// address alone does not say which array was meant: one that is about as
// far from two arrays names both.
//
// The sanitizer builds compile programs with -fsanitize=undefined, whose
// bounds check stops A[-1] on a fixed-size global before the access is made:
// the program stops there with UBSan's message, never reaching ours.
// UNSUPPORTED: sanitize
// RUN: %iopoly_clang -O1 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t
// RUN: rm -rf %t.data && %iopoly_run %t A 999 | FileCheck %s --check-prefix=IN
// RUN: not --crash %iopoly_run %t A -1 2>&1 | FileCheck %s --check-prefix=A-NEG
// RUN: not --crash %iopoly_run %t B -1 2>&1 | FileCheck %s --check-prefix=B-NEG
// RUN: not --crash %iopoly_run %t A 1000 2>&1 | FileCheck %s --check-prefix=A-END
// RUN: not --crash %iopoly_run %t A 1073741824 2>&1 | FileCheck %s --check-prefix=A-FAR
// RUN: not --crash %iopoly_run %t A -134217728 2>&1 | FileCheck %s --check-prefix=A-FAR-NEG
//
// IN: A[999] = 999
// A-NEG: iopoly: fatal: out-of-bounds access at {{.*}}out-of-bounds.c:{{[0-9]+:[0-9]+}} in 'main': 8 bytes before the start of disk-resident array 'A' (8000 bytes) (a negative index){{$}}
// A-NEG-NOT: A[
// B-NEG: iopoly: fatal: out-of-bounds access at {{.*}}out-of-bounds.c:{{[0-9]+:[0-9]+}} in 'main': 8 bytes before the start of disk-resident array 'B' (8000 bytes) (a negative index){{$}}
// B-NEG-NOT: B[
// A-END: iopoly: fatal: out-of-bounds access at {{.*}}: bytes 8000..8007 of disk-resident array 'A' (8000 bytes): past its end{{$}}
// A-FAR: iopoly: fatal: out-of-bounds access at {{.*}}bytes 8589934592..8589934599 of disk-resident array 'A' (8000 bytes): past its end
// A-FAR-SAME: (the address alone does not say which array was meant)
// A-FAR-NEG: iopoly: fatal: out-of-bounds access at {{.*}}: 1073741824 bytes before the start of disk-resident array 'A' (8000 bytes) (a negative index)
#include <stdio.h>
#include <stdlib.h>
#define N 1000
double A[N];
double B[N];
#pragma iopoly disk_resident(A, B)
int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  long I = atol(argv[2]);
  for (int K = 0; K < N; ++K) {
    A[K] = K;
    B[K] = 2 * K;
  }
  double V = argv[1][0] == 'A' ? A[I] : B[I];
  printf("%s[%ld] = %g\n", argv[1], I, V);
  return 0;
}
