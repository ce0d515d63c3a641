// An inner loop with a constant bound on its trips (Polly's tiles run a few
// dozen) costs a strip driver per entry. The enclosing loop has a copy
// that runs as compiled when the strip windows already hold every address
// its inner loop can reach: from the second sweep on with a large buffer
// (runs of resident stripes mapped in place); never with a small one,
// where the strip-mined original runs. Both give the plain program's
// results. (The hand-tiled nest is vectorized: its inner loop becomes two
// loops, so it gets no nest copy.)
//
// UBSan's checks (the sanitizer builds compile programs with
// -fsanitize=undefined) are calls the strip-mining does not move past: the
// loops there are lowered access by access and the remark is not printed.
// UNSUPPORTED: sanitize
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -Rpass=iopoly %s -o %t 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %t.off > %t.expected
// RUN: rm -rf %t.data && %iopoly_run IOPOLY_BUFFER=64M %t > %t.out && cmp %t.expected %t.out
// RUN: rm -rf %t.data && %iopoly_run IOPOLY_BUFFER=64K %t > %t.out && cmp %t.expected %t.out
// RUN: FileCheck %s < %t.expected
// CHECK: sum 66154896
// REMARK: nest-version.c:[[@LINE+20]]:7: remark: strip-mined loop at stripe boundaries: {{.*}}; the enclosing loop runs as compiled while the windows hold every address it reaches
#include <stdio.h>

#define N 700
#define M 500
double A[N][M];
double B[M][N];
#pragma iopoly disk_resident(A, B)

int main(void) {
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < M; ++J)
      A[I][J] = (I + 2 * J) % 64;
  for (int II = 0; II < N; II += 32)
    for (int J = 0; J < M; ++J)
      for (int I = II; I < (II + 32 < N ? II + 32 : N); ++I)
        B[J][I] += A[I][J];
  double S = 0;
  for (int R = 0; R < 3; ++R)
    for (int J = 0; J < M; ++J)
      for (int I = 0; I < N; ++I)
        S += B[J][I] * (1 + ((I + R) % 3));
  printf("sum %.0f\n", S);
  return 0;
}
