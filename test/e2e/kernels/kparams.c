/* Pointer parameters with VLA types and locals from iopoly_alloc named by a
 * function-scope pragma; an array of 12-byte records whose elements
 * straddle stripe boundaries; narrow and wide integer types. The same
 * functions also run on ordinary memory. */
#include "emit.h"
#include <stdlib.h>
#include <string.h>
#include "iopoly.h"

struct rec { double v; float w; } __attribute__((packed));
#define R 5000
struct rec Recs[R];
short Small[7001];
long long Big[3001];
#pragma iopoly disk_resident(Recs, Small, Big)

static void fill(int n, int m, double a[n][m], double base) {
#pragma iopoly disk_resident(a)
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      a[i][j] = base + i * 0.25 - j * 0.125;
}

static double trace_sum(int n, int m, double (*a)[m]) {
#pragma iopoly disk_resident(a)
  double s = 0;
  for (int i = 0; i < n && i < m; ++i)
    s += a[i][i] + a[n - 1 - i][i];
  return s;
}

int main(void) {
  int n = 150, m = 170;
#ifdef IOPOLY_REFERENCE /* the mode=off build: ordinary memory */
  double (*disk)[m] = malloc(sizeof(double) * n * m);
#else
  double (*disk)[m] = iopoly_alloc_flags("kparams_disk", sizeof(double) * n * m, IOPOLY_CREATE | IOPOLY_TRUNC);
#endif
  double (*heap)[m] = malloc(sizeof(double) * n * m);
#pragma iopoly disk_resident(disk, heap)
  if (!disk || !heap)
    return 1;
  fill(n, m, disk, 1.0);
  fill(n, m, heap, 2.0);
  printf("traces %a %a\n", trace_sum(n, m, disk), trace_sum(n, m, heap));
  for (int i = 0; i < R; ++i) {
    Recs[i].v = i * 1.5;
    Recs[i].w = (float)(R - i);
  }
  for (int i = 1; i < R; ++i)
    Recs[i].v += Recs[i - 1].w;
  for (int i = 0; i < 7001; ++i)
    Small[i] = (short)(i * 37);
  for (int i = 0; i < 3001; ++i)
    Big[i] = (long long)Small[i * 2] * 1000003LL;
  EMIT(Recs);
  EMIT(Small);
  EMIT(Big);
  emit_bytes("disk", (const unsigned char *)disk, sizeof(double) * n * m);
  free(heap);
#ifdef IOPOLY_REFERENCE
  free(disk); /* LeakSanitizer checks the reference build too */
#else
  iopoly_free(disk);
#endif
  return 0;
}
