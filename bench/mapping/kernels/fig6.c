/* Paper 2, Fig. 6, at chunk granularity: iteration block c reads A's blocks
 * c, c+2, c+4 and block 0 (A[i % D]); 8*G blocks of D elements. */
#include "mapk.h"
#define D 512
#define G (4 * SCALE)
double A[(8 * G + 4) * D], B[8 * G * D];
#pragma iopoly disk_resident(A, B)
int main(int argc, char **argv) {
  mapk_begin(&argc, &argv);
  for (int i = 0; i < (8 * G + 4) * D; ++i)
    A[i] = (i % 101) * 0.5;
  for (int c = 0; c < 8 * G; ++c)
    for (int x = 0; x < D; ++x) {
      int i = c * D + x;
      B[i] = A[i] + A[x] + A[i + 4 * D] + A[i + 2 * D];
    }
  if (mapk_verify())
    for (int i = 0; i < 8 * G * D; ++i)
      mapk_mix(B[i]);
  mapk_end("fig6");
  return 0;
}
