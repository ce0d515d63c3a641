// Guarded accesses in a strip-mined loop are translated ahead of time as
// probes: where the guard is false the address lies outside both arrays
// (A[-700] .. A[-1], B past its end), and the strip driver must neither stop
// the program there nor let an access through unchecked. Results equal to
// the program on ordinary memory, in every mode; the guarded loop is
// strip-mined.
//
// UBSan's checks (the sanitizer builds compile programs with
// -fsanitize=undefined) are calls the strip-mining does not move past: the
// loops there are lowered access by access and the remark is not printed.
// UNSUPPORTED: sanitize
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -Rpass=iopoly %s -o %t.lower 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -fplugin-arg-iopoly-mode=clo %s -o %t.clo
// RUN: %t.off > %t.expected
// RUN: rm -rf %t.data && %iopoly_run %t.lower > %t.out && cmp %t.expected %t.out
// RUN: rm -rf %t.data && %iopoly_run %t.clo > %t.out && cmp %t.expected %t.out
// RUN: FileCheck %s < %t.expected
// CHECK: S 12497500 T 37492500
// REMARK: conditional-strips.c:[[@LINE+15]]:3: remark: strip-mined loop at stripe boundaries: 4 accesses to 'A', 'B' in 2 streams
#include <stdio.h>
#include <stdlib.h>
#define N 5000
double A[N];
double B[N];
#pragma iopoly disk_resident(A, B)
int main(int argc, char **argv) {
  (void)argv;
  long Over = argc - 1; // 0: the compiler cannot fold the guards away
  for (int I = 0; I < N; ++I) {
    A[I] = I;
    B[I] = 2 * I;
  }
  double S = 0;
  for (long I = -700; I < N + 700; ++I) {
    if (I >= 1 && I < N)
      B[I - 1] += A[I];
    if (I >= 0 && I < N + Over)
      S += A[I];
  }
  double T = 0;
  for (int I = 0; I < N; ++I)
    T += B[I];
  printf("S %.0f T %.0f\n", S, T);
  return 0;
}
