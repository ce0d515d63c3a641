// Which loops -fplugin-arg-iopoly-mpi=on distributes, and why not others.
// RUN: %clang_iopoly -O2 -c -fplugin-arg-iopoly-mpi=on -Rpass=iopoly -Rpass-missed=iopoly %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s
#define N 256
double A[N][N], B[N][N], S[N], U[N * N], V[N * N];
#pragma iopoly disk_resident(A, B, S, U, V)

// CHECK: remarks.c:[[@LINE+2]]:3: remark: distributed this loop over the MPI ranks (the outermost loop of its nest, which carries no dependence), mapping cache with local scheduling: 256 iterations in {{[0-9]+}} iteration chunks over 16 data chunks of 'A', 'B'; the table is computed at startup
void rows(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      B[i][j] = A[i][j] * 2.0;
}

// A time loop carries a dependence; the two loops inside it do not, and
// each is distributed (a sync point ends each one, every time step). (Polly
// dismisses the same over 2-D global arrays: "Inbounds assumption".)
// CHECK: remarks.c:[[@LINE+4]]:5: remark: distributed this loop over the MPI ranks (the outermost loop of its nest without a carried dependence, at depth 1), mapping cache
// CHECK: remarks.c:[[@LINE+5]]:5: remark: distributed this loop over the MPI ranks (the outermost loop of its nest without a carried dependence, at depth 1), mapping cache
void steps(void) {
  for (int t = 0; t < 4; ++t) {
    for (int i = 1; i < N * N - 1; ++i)
      U[i] = 0.5 * (V[i - 1] + V[i + 1]);
    for (int i = 1; i < N * N - 1; ++i)
      V[i] = U[i] + 1.0;
  }
}

// Every iteration reads what the previous one wrote.
// CHECK: remarks.c:[[@LINE+2]]:3: remark: loop not distributed over the MPI ranks: every loop of the nest carries a dependence
void prefix(void) {
  for (int i = 1; i < N; ++i)
    S[i] += S[i - 1];
}

// The pragma picks the inner loop; on a dependent loop it is refused.
// CHECK: remarks.c:[[@LINE+4]]:5: remark: distributed this loop over the MPI ranks (marked '#pragma iopoly distribute'), mapping cache
void marked(void) {
  for (int i = 0; i < N; ++i)
#pragma iopoly distribute
    for (int j = 0; j < N; ++j)
      B[i][j] = A[i][j] + 1.0;
}
// CHECK: remarks.c:[[@LINE+3]]:3: remark: loop not distributed over the MPI ranks: it is marked '#pragma iopoly distribute' but carries a dependence
void marked_dependent(void) {
#pragma iopoly distribute
  for (int i = 1; i < N; ++i)
    S[i] = S[i - 1] * 0.5;
}

// A loop whose bounds follow the enclosing loop's value runs different
// iterations every time: the pieces of a table would cross its bounds.
// CHECK: remarks.c:[[@LINE+4]]:5: remark: loop not distributed over the MPI ranks: its iterations depend on an enclosing loop's value
void triangle(void) {
  for (int k = 1; k < N; ++k) {
    S[k] = S[k - 1] * 0.5;
    for (int i = 0; i < k; ++i)
      B[k][i] = S[i] + 1.0;
  }
}

// An allocated array (its size reaches the SCoP only through its accesses)
// is cut into data chunks as far as the loops reach, and named as the
// pragma names it.
// CHECK: remarks.c:[[@LINE+4]]:3: remark: distributed this loop over the MPI ranks (the outermost loop of its nest, which carries no dependence), mapping cache with local scheduling: 256 iterations in {{[0-9]+}} iteration chunks over 16 data chunks of 'A', 'W'
void allocated(double (*W)[N]) {
#pragma iopoly disk_resident(W)
  W[0][0] = 1.0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      W[i][j] += A[i][j];
}

// Sizes known only at run time: the part of the array the loops touch is
// not bounded; a statement outside the loops gives no loop to blame.
// CHECK: remarks.c:[[@LINE+4]]:3: remark: loop not distributed over the MPI ranks: the part of disk-resident array 'P' the loops touch is not known at compile time
void unbounded(double *P, int n) {
#pragma iopoly disk_resident(P)
  P[0] = 2.0;
  for (int i = 1; i < n; ++i)
    P[i] = i * 0.5;
}
