/* Allocated arrays whose file layout the compiler chooses (issue 10): a
 * 2-D array walked down its columns, one walked along its rows and a 3-D
 * one walked with its first subscript innermost, allocated in main and
 * passed to static functions that name them disk-resident (c lives in
 * ordinary memory: calloc). Every element
 * is printed through the arrays' dimensions (so the walks that print are
 * rewritten with the kernels'); a byte dump would take the address as
 * bytes and keep the arrays row-major. */
#include <stdio.h>
#include <stdlib.h>
#include "iopoly.h"

#define N 192
#define M 160
#define P 10
#define Q 8
#define R 12

static void init(double a[N][M], double b[M][N], double c[P][Q][R]) {
#pragma iopoly disk_resident(a, b, c)
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < M; ++j)
      a[i][j] = i * 0.5 + j;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      b[i][j] = i - j * 0.25;
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < Q; ++j)
      for (int k = 0; k < R; ++k)
        c[i][j][k] = i * 100 + j * 10 + k;
}

/* Columns of a, rows of b: a is voted column-major, b stays row-major. */
static void sweep(double a[N][M], double b[M][N], double c[P][Q][R]) {
#pragma iopoly disk_resident(a, b, c)
  for (int t = 0; t < 4; ++t)
    for (int j = 1; j < M; ++j)
      for (int i = 0; i < N; ++i)
        a[i][j] += 0.5 * b[j][i] - 0.25 * a[i][j - 1];
  for (int t = 0; t < 4; ++t)
    for (int j = 0; j < Q; ++j)
      for (int k = 0; k < R; ++k)
        for (int i = 1; i < P; ++i)
          c[i][j][k] += c[i - 1][j][k] * 0.5;
}

/* Row sums, added in row order, and the first column of each: every
 * element reaches the output, in an order that does not depend on the
 * layout. */
static void print(double a[N][M], double b[M][N], double c[P][Q][R]) {
#pragma iopoly disk_resident(a, b, c)
  for (int i = 0; i < N; ++i) {
    double s = 0;
    for (int j = 0; j < M; ++j)
      s += a[i][j];
    printf("a %d %a %a\n", i, s, a[i][0]);
  }
  for (int i = 0; i < M; ++i) {
    double s = 0;
    for (int j = 0; j < N; ++j)
      s += b[i][j];
    printf("b %d %a %a\n", i, s, b[i][N - 1]);
  }
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < Q; ++j)
      for (int k = 0; k < R; ++k)
        printf("c %d %d %d %a\n", i, j, k, c[i][j][k]);
}

int main(void) {
#ifdef IOPOLY_REFERENCE /* the mode=off build: ordinary memory */
  double (*a)[N][M] = malloc(sizeof *a);
  double (*b)[M][N] = malloc(sizeof *b);
#else
  double (*a)[N][M] = iopoly_alloc_flags("kalloc_a", sizeof *a, IOPOLY_CREATE | IOPOLY_TRUNC);
  double (*b)[M][N] = iopoly_alloc_flags("kalloc_b", sizeof *b, IOPOLY_CREATE | IOPOLY_TRUNC);
#endif
  double (*c)[P][Q][R] = calloc(1, sizeof *c);
  if (!a || !b || !c)
    return 1;
  init(*a, *b, *c);
  sweep(*a, *b, *c);
  print(*a, *b, *c);
  free(c);
#ifdef IOPOLY_REFERENCE
  free(a);
  free(b);
#else
  iopoly_free(a);
  iopoly_free(b);
#endif
  return 0;
}
