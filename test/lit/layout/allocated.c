// Allocated arrays (issue 10): the pass follows a malloc'd array from its
// allocation into the static functions it is passed to, scores its layouts
// over all their accesses and rewrites every one of them. It keeps
// row-major, saying why, when a function of another file could see the
// array, when the allocation is not one it knows, or when the array is
// walked through a flat pointer. Arrays are named as the pragmas name them.
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -Rpass-missed=iopoly %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -fplugin-arg-iopoly-layout=v:0,1 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: not %clang_iopoly -O0 -c -fplugin-arg-iopoly-layout=v:1,0 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=O0
// O0: error: iopoly: cannot store 'v' in layout 1,0 (column-major) as -fplugin-arg-iopoly-layout asks: at -O0 the pass does not follow allocated arrays
// CHECK-DAG: remark: file layout of 'v': 1,0 (column-major), most accesses {{.*}}(statement instances along / against each layout: 0,1: 65536 along, 131072 against; 1,0: 131072 along, 65536 against; other: 0; weights: trip product (2 accesses))
// CHECK-DAG: remark: file layout of 'x': kept row-major because it is passed to function 'shared', which other files may call with other arrays (it is not static)
// CHECK-DAG: remark: file layout of 'w': kept row-major because it is passed to function 'relay', which other files may call with other arrays (it is not static)
// CHECK-DAG: remark: file layout of 'y': kept row-major because the pass does not see its allocation
// CHECK-DAG: remark: file layout of 'z': kept row-major because pointer arithmetic walks it other than by its dimensions
// FORCED: remark: file layout of 'v': 0,1 (row-major), requested by -fplugin-arg-iopoly-layout
#include <stdlib.h>
#define N 256

static void fill(double v[N][N]) {
#pragma iopoly disk_resident(v)
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      v[i][j] = i - j;
}

static void colsum(double v[N][N], double *s) {
#pragma iopoly disk_resident(v)
  for (int t = 0; t < 2; ++t)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i)
        s[j] += v[i][j] * (t + 1);
}

void shared(double x[N][N]) {
#pragma iopoly disk_resident(x)
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      x[i][j] = i;
}

static void walky(double y[N][N]) {
#pragma iopoly disk_resident(y)
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      y[i][j] = j;
}

static void flat(double z[N][N]) {
#pragma iopoly disk_resident(z)
  double *p = &z[0][0];
  for (int k = 0; k < N * N; ++k)
    p[k] = k;
}

// Called with an allocation here, and by relay(), whose callers in other
// files pass arrays of their own.
static void walkw(double w[N][N]) {
#pragma iopoly disk_resident(w)
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      w[i][j] = i + j;
}

void relay(double w[N][N]) { walkw(w); }

void *my_alloc(size_t); // not known to return fresh memory

double run(void) {
  double (*V)[N][N] = malloc(sizeof *V);
  double (*X)[N][N] = malloc(sizeof *X);
  double (*Y)[N][N] = my_alloc(sizeof *Y);
  double (*Z)[N][N] = malloc(sizeof *Z);
  double (*W)[N][N] = malloc(sizeof *W);
  double *S = calloc(N, sizeof(double));
  if (!V || !S)
    return 0;
  fill(*V);
  colsum(*V, S);
  shared(*X);
  walky(*Y);
  flat(*Z);
  walkw(*W);
  double r = S[7];
  free(V);
  free(S);
  return r;
}
