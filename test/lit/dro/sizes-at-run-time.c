// A kernel compiled apart from its caller takes its sizes as parameters:
// nothing but their C type bounds the number of rows, and the bytes the
// loops touch "over every run" were terabytes. Every data tile then held a
// whole array, no tile fitted any buffer, no footprint model could be made,
// and dro-wp ran the original order, which reads all of B once per row of
// C. Such a size is now modelled at a nominal value, here 320, the largest
// size the program bounds (Analysis/ScopParams.h); the others keep the
// bounds Polly assumes for them (the declared row lengths). The versions are compared at that size,
// and the runtime still chooses among them for the real buffer.
//
// UNSUPPORTED: sanitize
//
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: rm -rf %t.data && mkdir -p %t.data && %iopoly_run %t.off > %t.off.out
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-stripe=4K -mllvm -iopoly-print-tiling \
// RUN:   -Rpass=iopoly -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp %s -o %t.wp
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=128K IOPOLY_STATS=%t.wp.stats %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.wp.out
// RUN: FileCheck %s --check-prefix=WP < %t.wp.stats
//
// PLAN: iopoly tiling plan of SCoP {{.*}} in function kernel
// PLAN: disk-resident arrays (map bits): [0] C ({{[0-9]+}} bytes at the nominal size) [1] A ({{[0-9]+}} bytes at the nominal size) [2] B (655360 bytes)
// PLAN: remark: dro-wp: tiled the loops here by their data: {{.*}}versions: units {{.*}}Polly's schedule {{.*}}in tiles of
// The original order fetches about 15,400 stripes at this buffer (B, 160
// stripes, once per row of C); the chosen version under 4,000.
// WP: "stripe_fetches":{{([1-3][0-9]{3}|[0-9]{1,3})}},
#include <iopoly.h>
#include <stdio.h>
#include <stdlib.h>

#define NJ 256
#define NK 320

__attribute__((noinline)) void kernel(int ni, int nj, int nk, double C[][NJ], double A[][NK], double B[][NJ]) {
#pragma iopoly disk_resident(A, B, C)
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= 1.2;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += 1.5 * A[i][k] * B[k][j];
  }
}

int main(int argc, char **argv) {
  int ni = argc > 1 ? atoi(argv[1]) : 96;
  double(*C)[NJ] = iopoly_alloc_flags("C", sizeof(double) * ni * NJ, IOPOLY_CREATE | IOPOLY_TRUNC);
  double(*A)[NK] = iopoly_alloc_flags("A", sizeof(double) * ni * NK, IOPOLY_CREATE | IOPOLY_TRUNC);
  double(*B)[NJ] = iopoly_alloc_flags("B", sizeof(double) * NK * NJ, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!C || !A || !B) {
    fprintf(stderr, "%s\n", iopoly_last_error());
    return 1;
  }
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < NJ; j++)
      C[i][j] = (double)((i * j + 1) % 7) / 7;
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = (double)((i + k) % 5) / 5;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = (double)((3 * k + j) % 11) / 11;
  kernel(ni, NJ, NK, C, A, B);
  double S = 0;
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < NJ; j++)
      S += C[i][j] * (1 + (i + j) % 3);
  printf("%.17g\n", S);
  return 0;
}
