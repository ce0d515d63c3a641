/* blas_main.c - compiled with the plugin: disk-resident globals (named in
 * the pragma) and iopoly_alloc memory handed to a BLAS-like routine built
 * without it (blas_other.c), then read back by compiled code. */
#include "emit.h"
#include <stdlib.h>
#ifndef IOPOLY_REFERENCE
#include "iopoly.h"
#endif

#define N 160
double A[N * N], B[N * N];
#pragma iopoly disk_resident(A, B)
void my_dgemm(int n, double alpha, const double *a, const double *b, double beta, double *c);
void my_daxpy(int n, double alpha, const double *x, double *y);
double my_ddot(int n, const double *x, const double *y);

int main(void) {
#ifdef IOPOLY_REFERENCE
  double *C = malloc(sizeof(double) * N * N);
#else
  double *C = iopoly_alloc_flags("blas_C", sizeof(double) * N * N, IOPOLY_CREATE | IOPOLY_TRUNC);
#endif
  for (int i = 0; i < N * N; ++i) {
    A[i] = (i % 17) * 0.25 - 1;
    B[i] = (i % 13) * 0.5 + 0.125;
    C[i] = i * 1e-3;
  }
  my_dgemm(N, 1.5, A, B, 0.5, C);
  my_daxpy(N * N, -0.25, A, B);
  static double out[N * N + 1];
  for (int i = 0; i < N * N; ++i)
    out[i] = C[i] + B[i];
  out[N * N] = my_ddot(N * N, C, B);
  EMIT(out);
  free(C);
  return 0;
}
