/* y = M x: every iteration reads all of x, its own row of M. */
#include "mapk.h"
#define N (128 * SCALE)
#define K 1024
double Mat[N][K], X[K], Y[N];
#pragma iopoly disk_resident(Mat, X, Y)
int main(int argc, char **argv) {
  mapk_begin(&argc, &argv);
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < K; ++k)
      Mat[i][k] = ((i + k) % 9) * 0.5;
  for (int k = 0; k < K; ++k)
    X[k] = k % 5;
  for (int i = 0; i < N; ++i) {
    Y[i] = 0;
    for (int k = 0; k < K; ++k)
      Y[i] += Mat[i][k] * X[k];
  }
  if (mapk_verify())
    for (int i = 0; i < N; ++i)
      mapk_mix(Y[i]);
  mapk_end("matvec");
  return 0;
}
