/* PolyBench's jacobi-1d pattern (own code): a time loop whose two inner
 * loops are distributed, each ending in a sync point. */
#include "mapk.h"
#define N (65536 * SCALE)
#define T 4
double A[N], B[N];
#pragma iopoly disk_resident(A, B)
int main(int argc, char **argv) {
  mapk_begin(&argc, &argv);
  for (int i = 0; i < N; ++i)
    A[i] = (i % 23) * 0.5;
  for (int t = 0; t < T; ++t) {
    for (int i = 1; i < N - 1; ++i)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; ++i)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
  if (mapk_verify())
    for (int i = 0; i < N; ++i)
      mapk_mix(A[i]);
  mapk_end("jacobi1d");
  return 0;
}
