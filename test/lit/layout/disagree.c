// Two statements disagree on W: the first walks it along its columns 4
// times (4 x 512 x 512 instances), the second along its rows once. The
// heavier statement wins: column-major. With the weights reversed (the
// row walk repeated), row-major stays.
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -DREVERSED %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REV
// CHECK: remark: file layout of 'W': 1,0 (column-major), most accesses {{.*}}(statement instances along / against each layout: 0,1: 262144 along, 1048576 against; 1,0: 1048576 along, 262144 against; other: 0; weights: exact domain count (2 accesses))
// REV: remark: file layout of 'W': 0,1 (row-major), most accesses {{.*}}(statement instances along / against each layout: 0,1: 1048576 along, 262144 against; 1,0: 262144 along, 1048576 against; other: 0; weights: exact domain count (2 accesses))
#define N 512
double W[N][N], A[N][N], B[N][N];
#pragma iopoly disk_resident(W, A, B)

#ifdef REVERSED
#define COLS 1
#define ROWS 4
#else
#define COLS 4
#define ROWS 1
#endif

void f(void) {
  for (int t = 0; t < COLS; ++t)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        A[i][j] = W[j][i];
  for (int t = 0; t < ROWS; ++t)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        B[i][j] = W[i][j];
}
