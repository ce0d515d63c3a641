/* blas_other.c - a BLAS-like library built without the plugin (issue 9:
 * code the plugin never saw): it is handed disk-resident memory and works
 * through the runtime's page faults. Column-major, as the Fortran BLAS. */
#include <stddef.h>

/* C = alpha * A * B + beta * C, all n x n, column-major, leading dim n. */
void my_dgemm(int n, double alpha, const double *a, const double *b, double beta, double *c) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i)
      c[i + (size_t)j * n] *= beta;
    for (int k = 0; k < n; ++k) {
      double t = alpha * b[k + (size_t)j * n];
      for (int i = 0; i < n; ++i)
        c[i + (size_t)j * n] += t * a[i + (size_t)k * n];
    }
  }
}

/* y += alpha * x */
void my_daxpy(int n, double alpha, const double *x, double *y) {
  for (int i = 0; i < n; ++i)
    y[i] += alpha * x[i];
}

double my_ddot(int n, const double *x, const double *y) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * y[i];
  return s;
}
