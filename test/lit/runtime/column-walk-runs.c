// A column walk over an array that fits in the buffer reads each stripe
// once and then finds it in its window: the window grows into a run of
// resident stripes mapped in place, so the walk calls the runtime a few
// times per pass and pins each stripe about once. The runs' budget is half
// of the buffer's frames, not half of the frames set up so far: with that
// bug every pass released its run and pinned it again stripe by stripe
// (PolyBench's syrk ran 9x slower than on malloc'd memory).
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=64K -fplugin-arg-iopoly-disks=4 %s -o %t
// RUN: rm -rf %t.data && %iopoly_run IOPOLY_STRIPE=64K IOPOLY_BUFFER=64M IOPOLY_STATS=%t.stats %t | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// CHECK: sum 8257536
// The array's 32 stripes, written once and read once per window: a few
// hundred attaches, against tens of thousands with the bug.
// STATS: "stripe_fetches":0,
// STATS: "attaches":{{[0-9][0-9]?[0-9]?}},
#include <stdio.h>

#define ROWS 1024
#define COLS 256
double A[ROWS][COLS];
#pragma iopoly disk_resident(A)

int main(void) {
  for (int j = 0; j < ROWS; ++j)
    for (int k = 0; k < COLS; ++k)
      A[j][k] = (j + k) % 64;
  double Sum = 0;
  for (int k = 0; k < COLS; ++k)
    for (int j = 0; j < ROWS; ++j)
      Sum += A[j][k];
  printf("sum %.0f\n", Sum);
  return 0;
}
