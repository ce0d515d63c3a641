/* frame_sites.c - one function with thousands of disk-resident access
 * sites (issue 9: 3mm under mode=clo reserved a 10 MB frame, one window per
 * site after unrolling and tiling, and died before main). The function
 * recurses, so a frame that grew with the sites would overflow the default
 * 8 MB stack many times over; the lowering's windows are bounded per
 * function. */
#include "emit.h"

#define N 8192
double A[N];
#pragma iopoly disk_resident(A)

#define S1(k) A[((k) * 37 + d) % N] += 1.0 + (k) * 0.5;
#define S4(k) S1(k) S1((k) + 1) S1((k) + 2) S1((k) + 3)
#define S16(k) S4(k) S4((k) + 4) S4((k) + 8) S4((k) + 12)
#define S64(k) S16(k) S16((k) + 16) S16((k) + 32) S16((k) + 48)
#define S256(k) S64(k) S64((k) + 64) S64((k) + 128) S64((k) + 192)
#define S1024(k) S256(k) S256((k) + 256) S256((k) + 512) S256((k) + 768)

/* 1024 read-modify-write statements: 2048 load and store sites (with one
 * window per site, as before, 256 KiB per frame: 101 frames need 26 MB). */
__attribute__((noinline)) static void touch(int d) {
  if (d > 0)
    touch(d - 1);
  S1024(0)
}

int main(void) {
  for (int i = 0; i < N; ++i)
    A[i] = i;
  touch(100); /* 101 frames */
  static double out[N];
  for (int i = 0; i < N; ++i)
    out[i] = A[i];
  EMIT(out);
  return 0;
}
