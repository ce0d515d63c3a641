/*===- par_protocol.c - The parallel-loop entry points as Polly calls them -===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * What -fplugin-arg-iopoly-threads=on makes of a parallel loop, written by
 * hand: an outlined body that takes iterations from __iopoly_par_next
 * until none is left, started by __iopoly_par_start, run by the caller too,
 * joined by __iopoly_par_end (include/iopoly/abi.h). Two loops in a row,
 * the second reading what the first wrote (the loops run one after the
 * other), plus a loop with a step of 3 and an empty one. Prints a checksum
 * of the array, which must not depend on IOPOLY_THREADS or IOPOLY_SCHED.
 *
 *   par_protocol <stripes>
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"
#include "iopoly/abi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct ctx {
  iopoly_array *a;
  size_t per_stripe, stripes;
  int phase;
};

static void body(void *p) {
  struct ctx *c = p;
  long lo, hi;
  while (__iopoly_par_next(&lo, &hi))
    for (long i = lo; i < hi; ++i) {
      size_t s = (size_t)i;
      double *x = iopoly_attach(c->a, s, c->phase == 0 ? IOPOLY_WRITE | IOPOLY_OVERWRITE : IOPOLY_WRITE);
      if (!x) {
        fprintf(stderr, "par_protocol: attach %zu: %s\n", s, iopoly_last_error());
        exit(1);
      }
      for (size_t k = 0; k < c->per_stripe; ++k)
        x[k] = c->phase == 0 ? (double)(s * 31 + k) : x[k] * 0.5 + (double)c->phase;
      iopoly_release(c->a, s);
    }
  __iopoly_par_end_nowait();
}

static void parallel_loop(struct ctx *c, long start, long end, long incr) {
  __iopoly_par_start(body, c, 0, start, end, incr);
  body(c);
  __iopoly_par_end();
}

int main(int argc, char **argv) {
  struct ctx c = {0};
  c.stripes = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
  if (c.stripes < 1 || c.stripes > 100000) {
    fprintf(stderr, "usage: par_protocol <stripes (1 to 100000)>\n");
    return 2;
  }
  c.per_stripe = iopoly_block_size() / sizeof(double);
  size_t dims[1] = {c.stripes * c.per_stripe};
  c.a = iopoly_open("P", sizeof(double), 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!c.a) {
    fprintf(stderr, "par_protocol: open: %s\n", iopoly_last_error());
    return 1;
  }
  c.phase = 0;
  parallel_loop(&c, 0, (long)c.stripes, 1);
  c.phase = 1;
  parallel_loop(&c, 0, (long)c.stripes, 1);
  c.phase = 2;
  parallel_loop(&c, 1, (long)c.stripes, 3);
  parallel_loop(&c, 5, 5, 1); /* no iteration */
  uint64_t h = 1469598103934665603ULL;
  for (size_t s = 0; s < c.stripes; ++s) {
    const unsigned char *x = iopoly_attach(c.a, s, IOPOLY_READ);
    if (!x) {
      fprintf(stderr, "par_protocol: attach %zu: %s\n", s, iopoly_last_error());
      return 1;
    }
    for (size_t k = 0; k < iopoly_block_size(); ++k)
      h = (h ^ x[k]) * 1099511628211ULL;
    iopoly_release(c.a, s);
  }
  printf("%016llx\n", (unsigned long long)h);
  return iopoly_close(c.a) ? 1 : 0;
}
