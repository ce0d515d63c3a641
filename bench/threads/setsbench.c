/*===- setsbench.c - Locality sets run as tasks on threads (paper 1 s.5) -===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * A program whose work is a graph of locality sets, run through the same
 * entry point restructured code would call (__iopoly_run_sets, on
 * IOPOLY_THREADS threads with the IOPOLY_SCHED policy), over arrays of
 * doubles on the striped disks, through the one stripe buffer:
 *
 *   sweep  set t: B[t] = A[t] / 2                    (no reuse between sets)
 *   halo   set t: B[t] = (A[t-1] + 2 A[t] + A[t+1]) / 4 (neighbours share A)
 *   wave   halo, then set U+t: C[t] = (B[t-1] + 2 B[t] + B[t+1]) / 4, after
 *          the sets t-1, t, t+1 of the first phase (a DAG)
 *
 * A[t] is unit t: <stripes-per-unit> consecutive stripes. A set's map is
 * either the disks of the units it touches (map "disks": paper 1's disk
 * maps, iopoly_block_disk) or the units themselves (map "units": the
 * stripe-unit tags of the data-tiled restructuring, one bit per unit). The output
 * arrays' checksum (FNV-1a of their bytes) is printed: it must not depend on
 * the thread count or the policy. With a stats path, the statistics of the
 * run of the sets alone (initialisation excluded) are written there before
 * the checksum is read.
 *
 *   setsbench sweep|halo|wave <units> <stripes-per-unit> disks|units [stats.json]
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"
#include "iopoly/abi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SWEEP, HALO, WAVE };

struct ctx {
  int kind;
  size_t units, spu, per_stripe; /* doubles per stripe */
  iopoly_array *a, *b, *c;
};

static void *attach_or_die(iopoly_array *x, size_t block, int mode) {
  void *p = iopoly_attach(x, block, mode);
  if (!p) {
    fprintf(stderr, "setsbench: attach of block %zu of %s: %s\n", block, iopoly_array_name(x), iopoly_last_error());
    exit(1);
  }
  return p;
}

/* out[t] = (in[t-1] + 2 in[t] + in[t+1]) / 4 (missing neighbours: in[t]),
 * or in[t] / 2 for sweep; stripe by stripe. */
static void smooth(struct ctx *c, iopoly_array *in, iopoly_array *out, size_t t, int neighbours) {
  for (size_t j = 0; j < c->spu; ++j) {
    size_t mid = t * c->spu + j;
    size_t lo = neighbours && t > 0 ? mid - c->spu : mid;
    size_t hi = neighbours && t + 1 < c->units ? mid + c->spu : mid;
    const double *x = attach_or_die(in, mid, IOPOLY_READ);
    const double *l = lo == mid ? x : attach_or_die(in, lo, IOPOLY_READ);
    const double *h = hi == mid ? x : attach_or_die(in, hi, IOPOLY_READ);
    double *y = attach_or_die(out, mid, IOPOLY_WRITE | IOPOLY_OVERWRITE);
    for (size_t k = 0; k < c->per_stripe; ++k)
      y[k] = neighbours ? (l[k] + 2 * x[k] + h[k]) / 4 : x[k] / 2;
    iopoly_release(out, mid);
    if (hi != mid)
      iopoly_release(in, hi);
    if (lo != mid)
      iopoly_release(in, lo);
    iopoly_release(in, mid);
  }
}

static void body(void *p, uint32_t set) {
  struct ctx *c = p;
  if (set < c->units)
    smooth(c, c->a, c->b, set, c->kind != SWEEP);
  else
    smooth(c, c->b, c->c, set - c->units, 1);
}

static iopoly_array *open_array(const char *name, size_t units, size_t spu) {
  size_t dims[1] = {units * spu * (iopoly_block_size() / sizeof(double))};
  iopoly_array *x = iopoly_open(name, sizeof(double), 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!x) {
    fprintf(stderr, "setsbench: cannot open %s: %s\n", name, iopoly_last_error());
    exit(1);
  }
  return x;
}

static int by_units;

/* Marks in map (words of 64 bits) the disks of unit t of x, or the unit. */
static void mark_unit(uint64_t *map, iopoly_array *x, size_t t, size_t spu) {
  if (by_units) {
    map[t / 64] |= (uint64_t)1 << (t % 64);
    return;
  }
  for (size_t j = 0; j < spu; ++j) {
    size_t d = iopoly_block_disk(x, t * spu + j);
    map[d / 64] |= (uint64_t)1 << (d % 64);
  }
}

int main(int argc, char **argv) {
  if (argc < 5 || argc > 6) {
    fprintf(stderr, "usage: setsbench sweep|halo|wave <units> <stripes-per-unit> disks|units [stats.json]\n");
    return 2;
  }
  by_units = !strcmp(argv[4], "units");
  if (!by_units && strcmp(argv[4], "disks")) {
    fprintf(stderr, "setsbench: map '%s' is not disks or units\n", argv[4]);
    return 2;
  }
  struct ctx c = {0};
  c.kind = !strcmp(argv[1], "sweep") ? SWEEP : !strcmp(argv[1], "halo") ? HALO : !strcmp(argv[1], "wave") ? WAVE : -1;
  char *end;
  c.units = strtoul(argv[2], &end, 10);
  if (c.kind < 0 || *end || c.units < 1 || c.units > 1000000) {
    fprintf(stderr, "setsbench: '%s %s': expected sweep, halo or wave and 1 to 1000000 units\n", argv[1], argv[2]);
    return 2;
  }
  c.spu = strtoul(argv[3], &end, 10);
  if (*end || c.spu < 1 || c.spu > 4096) {
    fprintf(stderr, "setsbench: stripes per unit '%s' is not 1 to 4096\n", argv[3]);
    return 2;
  }
  c.per_stripe = iopoly_block_size() / sizeof(double);
  c.a = open_array("A", c.units, c.spu);
  c.b = open_array("B", c.units, c.spu);
  c.c = c.kind == WAVE ? open_array("C", c.units, c.spu) : NULL;

  /* A: a deterministic pattern, written once before the measured part. */
  for (size_t s = 0; s < c.units * c.spu; ++s) {
    double *x = attach_or_die(c.a, s, IOPOLY_WRITE | IOPOLY_OVERWRITE);
    for (size_t k = 0; k < c.per_stripe; ++k)
      x[k] = (double)((s * 7919 + k * 104729) % 1000003) / 7.0;
    iopoly_release(c.a, s);
  }
  if (iopoly_flush(NULL)) {
    fprintf(stderr, "setsbench: flush: %s\n", iopoly_last_error());
    return 1;
  }
  iopoly_reset_stats();

  /* The task graph: disk maps, footprints (stripes), dependences. */
  size_t disks = iopoly_num_disks(), words = ((by_units ? c.units : disks) + 63) / 64;
  uint32_t nsets = (uint32_t)(c.kind == WAVE ? 2 * c.units : c.units);
  uint64_t *maps = calloc((size_t)nsets * words, sizeof(uint64_t));
  uint64_t *stripes = calloc(nsets, sizeof(uint64_t));
  uint32_t *start = calloc((size_t)nsets + 1, sizeof(uint32_t));
  uint32_t *preds = calloc((size_t)nsets * 3 + 1, sizeof(uint32_t));
  if (!maps || !stripes || !start || !preds) {
    fprintf(stderr, "setsbench: out of memory for %u sets\n", nsets);
    return 1;
  }
  uint32_t npreds = 0;
  for (uint32_t k = 0; k < nsets; ++k) {
    size_t t = k % c.units;
    iopoly_array *in = k < c.units ? c.a : c.b, *out = k < c.units ? c.b : c.c;
    uint64_t *m = maps + (size_t)k * words;
    size_t touched = 2;
    mark_unit(m, in, t, c.spu);
    mark_unit(m, out, t, c.spu);
    if (c.kind != SWEEP) {
      if (t > 0)
        mark_unit(m, in, t - 1, c.spu), ++touched;
      if (t + 1 < c.units)
        mark_unit(m, in, t + 1, c.spu), ++touched;
    }
    stripes[k] = touched * c.spu;
    start[k] = npreds;
    if (k >= c.units)
      for (size_t u = t ? t - 1 : 0; u <= t + 1 && u < c.units; ++u)
        preds[npreds++] = (uint32_t)u;
  }
  start[nsets] = npreds;
  struct iopoly_set_table table = {IOPOLY_SET_ABI, nsets, (uint32_t)words, 0, maps, stripes, start, preds,
                                   "setsbench"};
  __iopoly_run_sets(&table, body, &c);
  if (iopoly_flush(NULL)) {
    fprintf(stderr, "setsbench: flush: %s\n", iopoly_last_error());
    return 1;
  }
  if (argc == 6 && iopoly_write_stats(argv[5])) {
    fprintf(stderr, "setsbench: stats: %s\n", iopoly_last_error());
    return 1;
  }

  uint64_t h = 1469598103934665603ULL;
  iopoly_array *outs[2] = {c.b, c.c};
  for (int o = 0; o < 2 && outs[o]; ++o)
    for (size_t s = 0; s < c.units * c.spu; ++s) {
      const unsigned char *x = attach_or_die(outs[o], s, IOPOLY_READ);
      for (size_t k = 0; k < iopoly_block_size(); ++k)
        h = (h ^ x[k]) * 1099511628211ULL;
      iopoly_release(outs[o], s);
    }
  printf("%016llx\n", (unsigned long long)h);
  free(maps);
  free(stripes);
  free(start);
  free(preds);
  for (int o = 0; o < 3; ++o) {
    iopoly_array *x = o == 0 ? c.a : o == 1 ? c.b : c.c;
    if (x && iopoly_close(x)) {
      fprintf(stderr, "setsbench: close: %s\n", iopoly_last_error());
      return 1;
    }
  }
  return 0;
}
