// Weights counted from Polly's domains. W is read along its columns by a
// triangular nest (N(N+1)/2 = 131328 instances) and along its rows by a
// rectangular one (512 x 384 = 196608). Counted exactly the rows win and W
// stays row-major; the trip-count product (the fallback outside SCoPs,
// forced here) weighs the triangle as 512 x 513 (the inner loop's largest trip count),
// 1.34x the rows: a near tie, which keeps row-major (another layout needs
// twice row-major's weight).
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -mllvm -iopoly-layout-domain-counts=false %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRIP
// A parameter (the row count n, unknown at compile time) is fixed at a
// representative value (100): 100 x 384 = 38400 row reads.
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -DPARAM %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARAM
//
// EXACT: remark: file layout of 'W': 0,1 (row-major), most accesses (weighted by how many times their statements run) are stride-1 in the file (statement instances along / against each layout: 0,1: 196608 along, 131328 against; 1,0: 131328 along, 196608 against; other: 0; weights: exact domain count (2 accesses))
// TRIP: remark: file layout of 'W': 0,1 (row-major), no layout has twice as many accesses stride-1 in the file as row-major {{.*}}(statement instances along / against each layout: 0,1: 196608 along, 262656 against; 1,0: 262656 along, 196608 against; other: 0; weights: trip product (2 accesses))
// PARAM: remark: file layout of 'W': 1,0 (column-major), {{.*}}(statement instances along / against each layout: 0,1: 38400 along, 131328 against; 1,0: 131328 along, 38400 against; other: 0; weights: exact domain count (1 access), exact domain count with parameters at representative values (1 access))
#define N 512
double W[N][N], A[N][N], B[N][N];
#pragma iopoly disk_resident(W, A, B)

#ifdef PARAM
void f(int n) {
#else
void f(void) {
  const int n = N;
#endif
  for (int i = 0; i < N; ++i)
    for (int j = 0; j <= i; ++j)
      A[i][j] = W[j][i];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 384; ++j)
      B[i][j] = W[i][j];
}
