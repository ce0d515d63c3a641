/*===- heat.c - A 2-D heat diffusion on disk-resident global arrays --------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Two 300x300 grids of doubles (720 KB each) named in the pragma: compiled
 * with the plugin they occupy no memory and live on striped files under
 * IOPOLY_DIR, served through the runtime's stripe buffer. The output (a
 * checksum and a few cells, exact in hex) is the same with or without the
 * plugin's lowering. The header line goes to stderr (the stripe size is a
 * run-time setting, so it differs between runs that must otherwise agree).
 *===----------------------------------------------------------------------===*/
#include <iopoly.h>
#include <stdint.h>
#include <stdio.h>

#define N 300
#define STEPS 5
double U[N][N], V[N][N];
#pragma iopoly disk_resident(U, V)

int main(void) {
  fprintf(stderr, "heat: iopoly %d.%d.%d, stripes of %zu bytes\n", IOPOLY_VERSION_MAJOR,
          IOPOLY_VERSION_MINOR, IOPOLY_VERSION_PATCH, iopoly_block_size());
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      U[i][j] = (i == N / 2 && j == N / 3) ? 1000.0 : (double)((i * 31 + j * 17) % 7);
  for (int t = 0; t < STEPS; ++t) {
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        V[i][j] = U[i][j] + 0.2 * (U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1] - 4 * U[i][j]);
    for (int i = 1; i < N - 1; ++i)
      for (int j = 1; j < N - 1; ++j)
        U[i][j] = V[j][i]; /* transposed: walks across stripes */
  }
  uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      union { double d; uint64_t u; } c = {U[i][j]};
      h = (h ^ c.u) * 1099511628211ULL;
    }
  printf("checksum %016llx\n", (unsigned long long)h);
  printf("U[150][100] %a\nV[1][298] %a\n", U[N / 2][N / 3], V[1][N - 2]);
  return 0;
}
