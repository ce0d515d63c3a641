// mode=clo register-tiles (Polly's register tiling: point loops by 2,
// unrolled and jammed) the point bands of three or more loops of Polly's
// tiling, except in SCoPs with a stencil (an array read at three or more
// subscripts a constant apart), where it multiplies the rows a point loop
// walks beyond the strip windows (heat-3d 19x slower).
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=clo -Rpass=iopoly -c %s -o /dev/null 2>&1 | FileCheck %s
// An explicit Polly option is the user's choice, and clo then adds none:
// RUN: %clang_iopoly -O2 -fplugin-arg-iopoly-mode=clo -mllvm -polly-register-tiling=false -Rpass=iopoly -c %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=USER
// CHECK: register-tiling.c:[[@LINE+11]]:{{.*}}clo: Polly's isl scheduler applied a new schedule (tiling, interchange or fusion) to the loops here, with register tiling of 1 band
// CHECK: register-tiling.c:[[@LINE+17]]:{{.*}}clo: Polly's isl scheduler applied a new schedule (tiling, interchange or fusion) to the loops here [-Rpass=iopoly]
// USER-NOT: register tiling
#define N 256
#define T 8
double A[N][N], B[N][N], C[N][N];
double U[N][N], V[N][N];
#pragma iopoly disk_resident(A, B, C, U, V)

void product(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        C[i][j] += A[i][k] * B[k][j];
}

void stencil(void) {
  for (int t = 0; t < T; ++t) {
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        V[i][j] = 0.2 * (U[i][j] + U[i][j - 1] + U[i][j + 1] + U[i + 1][j] + U[i - 1][j]);
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        U[i][j] = 0.2 * (V[i][j] + V[i][j - 1] + V[i][j + 1] + V[i + 1][j] + V[i - 1][j]);
  }
}
