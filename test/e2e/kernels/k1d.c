/* 1-D: several arrays larger than the buffer; reads, writes, reversed and
 * strided walks, a prefix sum (a loop-carried dependence). */
#include "emit.h"
#define N 100003
double X[N], Y[N], Z[N];
long Idx[N];
#pragma iopoly disk_resident(X, Y, Z, Idx)

int main(void) {
  for (long i = 0; i < N; ++i) {
    X[i] = (double)(i % 97) * 0.5 - 3.0;
    Idx[i] = (i * 7919) % N;
  }
  for (long i = 0; i < N; ++i)
    Y[N - 1 - i] = X[i] * 1.5 + 1.0;
  Z[0] = Y[0];
  for (long i = 1; i < N; ++i)
    Z[i] = Z[i - 1] * 0.999 + Y[i];
  for (long i = 0; i < N; i += 7)
    X[i] += Z[Idx[i]];
  double s = 0;
  for (long i = N - 1; i >= 0; --i)
    s += X[i] - Y[i] * 0.25;
  printf("sum %a\n", s);
  EMIT(X);
  EMIT(Y);
  EMIT(Z);
  return 0;
}
