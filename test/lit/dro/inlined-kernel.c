// A kernel in a function of its own, its array parameters named by a
// pragma, called from main, which names the arrays too (PolyBench's shape).
// After inlining, the arrays reach the loops through nested markers; unless
// they are folded into one, Polly guards its code with an alias check that
// fails at run time (the "two" arrays are one) and the original loops run.
// The restructured product must run: far fewer fetches than the original
// order, and the same results. Every array row-major (layout=off): stored
// column-major by the layout choice, B is read in order by the original
// loops too, and they are the baseline here.
//
// UBSan's pointer-overflow checks (the sanitizer builds compile programs
// with -fsanitize=undefined) are calls Polly cannot model: the loops stay
// in their order there, correct but not restructured.
// UNSUPPORTED: sanitize
//
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=lower -fplugin-arg-iopoly-layout=off %s -o %t.lower
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-layout=off %s -o %t.wp
// RUN: %iopoly_run %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_STATS=%t.lower.stats %t.lower > %t.lower.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_STATS=%t.wp.stats %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.lower.out
// RUN: cmp %t.off.out %t.wp.out
// The original order fetches B's column for every (i, j): hundreds of
// thousands of stripes; the restructured order a few thousand.
// RUN: FileCheck %s --check-prefix=LOWER < %t.lower.stats
// RUN: FileCheck %s --check-prefix=WP < %t.wp.stats
// LOWER: "stripe_fetches":{{[0-9][0-9][0-9][0-9][0-9][0-9]}},
// WP: "stripe_fetches":{{[0-9][0-9]?[0-9]?[0-9]?}},
#include <iopoly.h>
#include <stdio.h>

#define NI 120
#define NJ 130
#define NK 140

static void product(double E[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
#pragma iopoly disk_resident(E, A, B)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      E[i][j] = 0.0;
      for (int k = 0; k < NK; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
}

int main(void) {
  double(*E)[NJ] = iopoly_alloc_flags("E", sizeof(double) * NI * NJ, IOPOLY_CREATE | IOPOLY_TRUNC);
  double(*A)[NK] = iopoly_alloc_flags("A", sizeof(double) * NI * NK, IOPOLY_CREATE | IOPOLY_TRUNC);
  double(*B)[NJ] = iopoly_alloc_flags("B", sizeof(double) * NK * NJ, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!E || !A || !B) {
    fprintf(stderr, "%s\n", iopoly_last_error());
    return 1;
  }
#pragma iopoly disk_resident(E, A, B)
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = (double)((i * k + 1) % 7);
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = (double)((k * j + 2) % 5);
  product(E, A, B);
  double S = 0;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      S += E[i][j] * (i + 1) + j;
  printf("%.10e\n", S);
  return 0;
}
