/* cholesky_like.c - PolyBench's cholesky, reduced: init_array makes a
 * positive semi-definite matrix through a temporary B allocated in another
 * file (alloc_other.c) and written through local pointers; no pragma
 * anywhere: every pointer comes from another file and is checked at run
 * time. The arrays are freed with free() at the end, as
 * POLYBENCH_FREE_ARRAY does. */
#include "emit.h"
#include <math.h>
#include <stdlib.h>

#define N 120
void *other_alloc(size_t bytes);
void other_free(void *p);

static void init_array(int n, double A[N][N]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      A[i][j] = (double)(-j % n) / n + 1;
    for (int j = i + 1; j < n; j++)
      A[i][j] = 0;
    A[i][i] = 1;
  }
  /* Make the matrix positive semi-definite: B = A * A^T, then A = B. */
  double (*B)[N][N] = other_alloc(sizeof(double) * N * N);
  for (int r = 0; r < n; ++r)
    for (int s = 0; s < n; ++s)
      (*B)[r][s] = 0;
  for (int t = 0; t < n; ++t)
    for (int r = 0; r < n; ++r)
      for (int s = 0; s < n; ++s)
        (*B)[r][s] += A[r][t] * A[s][t];
  for (int r = 0; r < n; ++r)
    for (int s = 0; s < n; ++s)
      A[r][s] = (*B)[r][s];
  other_free(B);
}

static void kernel_cholesky(int n, double A[N][N]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
}

int main(void) {
  double (*A)[N][N] = other_alloc(sizeof(double) * N * N);
  init_array(N, *A);
  kernel_cholesky(N, *A);
  static double out[N][N];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      out[i][j] = (*A)[i][j];
  EMIT(out);
  free(A);
  return 0;
}
