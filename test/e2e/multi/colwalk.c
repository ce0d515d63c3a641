/* colwalk.c - a column walk of a 512 KiB array through a 64 KiB buffer
 * (issue 9: an 8 MB array re-read 1024 times over without a word). The
 * runtime must warn once that 'G' is read many times its size, naming this
 * loop and the walk across the rows, and report progress when asked. */
#include <stdio.h>

#define R 256
#define C 256
double G[R][C];
#pragma iopoly disk_resident(G)

int main(void) {
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      G[i][j] = i - j * 0.5;
  double s = 0;
  for (int j = 0; j < C; ++j)
    for (int i = 0; i < R; ++i) /* the column walk: line 18 */
      s += G[i][j];
  printf("%g\n", s);
  return 0;
}
