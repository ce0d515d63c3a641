/*===- scan.c - Sequential scan through the iopoly runtime ----------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Reads a disk-resident array from its first block to its last, the way
 * `dd` reads a file, to compare the backend's bandwidth with dd's on the
 * same directory (scripts/bench-runtime.sh does the comparison).
 *
 *   scan init NAME BYTES          create array NAME (BYTES bytes; a multiple
 *                                 of the block size) filled with
 *                                 pseudo-random bytes, and write it back
 *   scan read NAME BYTES [DEPTH]  attach (READ), touch and release every
 *                                 block in order; with DEPTH > 0, also hint
 *                                 iopoly_prefetch DEPTH blocks ahead
 *
 * `read` prints one JSON object: bytes, seconds, MB/s (10^6 bytes per
 * second, as dd prints it) and the depth. Configure with IOPOLY_* (stripe
 * size, buffer, disks) as usual; IOPOLY_STATS gives the runtime's counters.
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char *what) {
  fprintf(stderr, "scan: %s: %s\n", what, iopoly_last_error());
  exit(1);
}

static iopoly_array *open_array(const char *name, size_t bytes, int flags) {
  size_t dims[1] = {bytes};
  iopoly_array *a = iopoly_open(name, 1, 1, dims, flags);
  if (!a)
    die("iopoly_open");
  return a;
}

static void do_init(const char *name, size_t bytes) {
  iopoly_array *a = open_array(name, bytes, IOPOLY_CREATE | IOPOLY_TRUNC);
  size_t S = iopoly_block_size(), nb = iopoly_num_blocks(a);
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (size_t b = 0; b < nb; ++b) {
    uint64_t *p = iopoly_attach(a, b, IOPOLY_WRITE | IOPOLY_OVERWRITE);
    if (!p)
      die("iopoly_attach");
    for (size_t i = 0; i < S / 8; ++i) { /* xorshift64: not compressible */
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      p[i] = x;
    }
    if (iopoly_release(a, b) != 0)
      die("iopoly_release");
  }
  if (iopoly_close(a) != 0)
    die("iopoly_close");
}

static void do_read(const char *name, size_t bytes, size_t depth) {
  iopoly_array *a = open_array(name, bytes, IOPOLY_RDONLY);
  size_t S = iopoly_block_size(), nb = iopoly_num_blocks(a);
  if (depth >= iopoly_buffer_blocks()) {
    fprintf(stderr, "scan: DEPTH %zu must be below the buffer's %zu blocks\n", depth, iopoly_buffer_blocks());
    exit(2);
  }
  uint64_t sum = 0;
  double t0 = now();
  for (size_t b = 0; b < depth && b < nb; ++b)
    if (iopoly_prefetch(a, b) < 0)
      die("iopoly_prefetch");
  for (size_t b = 0; b < nb; ++b) {
    if (depth && b + depth < nb && iopoly_prefetch(a, b + depth) < 0)
      die("iopoly_prefetch");
    const uint64_t *p = iopoly_attach(a, b, IOPOLY_READ);
    if (!p)
      die("iopoly_attach");
    for (size_t i = 0; i < S / 8; i += 64) /* one word per 512 bytes */
      sum += p[i];
    if (iopoly_release(a, b) != 0)
      die("iopoly_release");
  }
  double t = now() - t0;
  if (iopoly_close(a) != 0)
    die("iopoly_close");
  printf("{\"bytes\": %zu, \"seconds\": %.6f, \"mb_per_s\": %.1f, \"depth\": %zu, \"block_bytes\": %zu, "
         "\"sum\": \"%016llx\"}\n",
         nb * S, t, (double)(nb * S) / t / 1e6, depth, S, (unsigned long long)sum);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: scan init NAME BYTES | scan read NAME BYTES [DEPTH]\n");
    return 2;
  }
  char *end;
  size_t bytes = strtoull(argv[3], &end, 10);
  if (*end || bytes == 0) {
    fprintf(stderr, "scan: bad BYTES '%s'\n", argv[3]);
    return 2;
  }
  if (!strcmp(argv[1], "init"))
    do_init(argv[2], bytes);
  else if (!strcmp(argv[1], "read"))
    do_read(argv[2], bytes, argc > 4 ? strtoull(argv[4], NULL, 10) : 0);
  else {
    fprintf(stderr, "scan: unknown mode '%s'\n", argv[1]);
    return 2;
  }
  return 0;
}
