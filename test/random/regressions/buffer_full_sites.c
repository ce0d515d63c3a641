/* Regression (test/random): more lowered access sites than buffer frames.
 *
 * Found by run_random.py (most generated programs at 4 KiB stripes and a
 * 64 KiB buffer). Every lowered load/store site owns a window that keeps
 * its stripe attached until the function returns, so a function whose
 * sites touch more distinct stripes than the buffer has frames (here 17
 * sites, 16 frames) stops with "stripe buffer full ... all 16 frames are
 * attached", at -O0 and -O2 alike, although at most one stripe is in use at
 * any moment. The mode=off build prints 0x1.2p+4.
 *
 * The README lists this as a known limitation (the buffer must hold one
 * stripe per access site and loop); run_random.py then runs the program
 * again with such a buffer (its bigger-buf column). Once windows give their
 * stripes back (e.g. at loop exit, or when the buffer runs out of frames),
 * this program should run at 64K:
 *
 *   build/bin/iopoly-clang -O2 -fplugin-arg-iopoly-mode=lower \
 *     -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 \
 *     test/random/regressions/buffer_full_sites.c -o sites
 *   mkdir d && env IOPOLY_DIR=$PWD/d IOPOLY_DISKS=4 IOPOLY_STRIPE=4K \
 *     IOPOLY_BUFFER=64K IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off ./sites
 *   => iopoly: fatal: lowered code: stripe buffer full: cannot bring in
 *      block 16 of array 'A' because all 16 frames are attached ('A' 16)
 */
#include <stdio.h>
double A[17 * 512];
#pragma iopoly disk_resident(A)
int main(void) {
  A[0 * 512] = 1;
  A[1 * 512] = 2;
  A[2 * 512] = 3;
  A[3 * 512] = 4;
  A[4 * 512] = 5;
  A[5 * 512] = 6;
  A[6 * 512] = 7;
  A[7 * 512] = 8;
  A[8 * 512] = 9;
  A[9 * 512] = 10;
  A[10 * 512] = 11;
  A[11 * 512] = 12;
  A[12 * 512] = 13;
  A[13 * 512] = 14;
  A[14 * 512] = 15;
  A[15 * 512] = 16;
  A[16 * 512] = 17;
  printf("%a\n", A[0] + A[16 * 512]);
  return 0;
}
