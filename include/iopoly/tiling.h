/*===- iopoly/tiling.h - Versions of restructured code, chosen at run time -===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Part of the plugin/runtime contract (included by iopoly/abi.h). A SCoP
 * the disk-reuse restructuring reorders is compiled in several versions,
 * one of which runs:
 *  - data-tiled versions (plugin/Analysis/DataTiling.h): tiles of a few
 *    unit sizes;
 *  - band versions (plugin/Analysis/BandTiling.h): Polly's own schedule
 *    with its bands tiled at a few tile sizes;
 *  - the original order, the last version.
 * Every version carries a footprint model (struct iopoly_band, struct
 * iopoly_band_term; plugin/Analysis/FootprintModel.h): its loop nests and
 * where the bytes of their iterations lie, which the runtime replays
 * through an LRU buffer of the run's size to estimate its stripe fetches
 * (common/TileReplay.h). Data-tiled versions and the original order also
 * carry the older description (struct iopoly_tile_term): per array and per
 * group of fused loop nests the box of bytes one tile touches and how many
 * tiles there are, whose formula below is the fallback where a model could
 * not be built (sizes unknown at compile time) and sizes the tiles of
 * parallel loops.
 * From the run's stripe size S and buffer capacity (frames) the runtime
 * computes for each version
 *   need = stripes one tile keeps in the buffer (per group, the largest),
 *   cost = estimated stripe fetches,
 * and runs the cheapest version whose need fits 3/4 of the buffer, or the
 * original order when none fits; when all the data fit, the version for
 * that case (IOPOLY_VERSION_IN_MEMORY) or the original order. The rule is
 * iopoly::chooseTileVersion (common/TileChoice.h), used by the runtime
 * (__iopoly_pick_version) and by the compiler (for -iopoly-buffer and the
 * printed plan) alike.
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_TILING_H
#define IOPOLY_TILING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One array in one group of one version. */
struct iopoly_tile_term {
  uint64_t span;    /* bytes from the first to the last byte one tile touches */
  uint64_t runs;    /* contiguous runs of bytes in that box */
  uint64_t run;     /* bytes per run */
  uint64_t window;  /* streamed arrays: bytes one step of the stream touches */
  uint64_t total;   /* bytes of the array in play */
  uint64_t tiles;   /* tiles of the group */
  uint32_t group;   /* group of the term (within its version) */
  uint16_t flags;   /* IOPOLY_TILE_* */
  uint16_t array;   /* which array (an index within the SCoP) */
};

/* The array is touched anew by every tile unless it all fits. */
#define IOPOLY_TILE_STREAMED 0x1
/* Loops left in their original order: no tile that must fit. */
#define IOPOLY_TILE_ORIGINAL 0x2

/* A band version: Polly's schedule tiled; its unit is the tile size in
 * iterations and it has no data terms. */
#define IOPOLY_VERSION_BANDS 0x1
/* A band version whose schedule keeps the row-walking loops innermost
 * (plugin/Analysis/BandTiling.h): for reports only. */
#define IOPOLY_VERSION_ROWS 0x2
/* The version that runs when all the data its loops touch fit the buffer:
 * Polly's schedule as mode=clo compiles it, tiled for the processor's
 * caches (no stripe is fetched twice in any order then). No data terms;
 * where it has a footprint model it is also compared by cost with the
 * others, else it runs only then. Its unit is Polly's tile size. */
#define IOPOLY_VERSION_IN_MEMORY 0x4

struct iopoly_tile_version {
  uint64_t unit;        /* bytes of one unit (0: the original order); band versions: iterations per tile */
  uint32_t first;       /* its data terms (struct iopoly_tile_term): index of the first */
  uint32_t count;       /*   and how many */
  uint32_t model_first; /* its footprint model (struct iopoly_band_term): index of the first */
  uint32_t model_count; /*   and how many (0: no model) */
  uint32_t flags;       /* IOPOLY_VERSION_* */
  uint32_t reserved;
};

/* Most loops of one band of a footprint model. */
#define IOPOLY_BAND_MAX_DIMS 8

/** A footprint model (plugin/Analysis/FootprintModel.h) describes each
 *  top-level loop nest of a version at several depths: at depth d, one
 *  iteration of its d outer loops is a "tile", and the loops run over a box
 *  of count[0] x ... x count[d-1] iterations. Bands of one nest follow each
 *  other by increasing depth. */
struct iopoly_band {
  uint64_t count[IOPOLY_BAND_MAX_DIMS];
  uint32_t dims; /* the depth */
  uint32_t nest; /* loop nest of the version */
  /* IOPOLY_BAND_BOUNDED (a triangular nest): in the tiles at t of the loops
   * outside it, the last loop runs from lo_first + sum(lo_step[d] * t[d])
   * to hi_first + sum(hi_step[d] * t[d]) (inclusive; within the box). */
  int64_t lo_step[IOPOLY_BAND_MAX_DIMS];
  int64_t hi_step[IOPOLY_BAND_MAX_DIMS];
  int64_t lo_first, hi_first;
  uint32_t flags; /* IOPOLY_BAND_* */
  uint32_t reserved;
};

/* The band's last loop has bounds of its own (lo_*, hi_*). */
#define IOPOLY_BAND_BOUNDED 0x1

/** Where one tile of a band touches one array. The tile at coordinates t
 *  (0 <= t[d] < count[d]) touches outer x inner runs of `run` bytes: run
 *  (o, i) starts at byte base + sum(step[d] * t[d]) + o * outer_pitch +
 *  i * inner_pitch of the array, clamped to [0, bytes). Only the tiles
 *  with from[d] <= t[d] < upto[d] in every dimension whose upto[d] is not
 *  0 touch it: the statements of a nest that run at some positions of its
 *  sequence only, or over part of a loop. */
struct iopoly_band_term {
  int64_t base;
  int64_t step[IOPOLY_BAND_MAX_DIMS];
  uint64_t from[IOPOLY_BAND_MAX_DIMS];
  uint64_t upto[IOPOLY_BAND_MAX_DIMS]; /* 0: every tile of the dimension */
  uint64_t outer, outer_pitch; /* runs of the outer level (1: none) */
  uint64_t inner, inner_pitch; /* runs within one outer step */
  uint64_t run;                /* bytes per run */
  uint64_t bytes;              /* bytes of the array (0: unknown) */
  /* IOPOLY_BAND_TERM_VARIES (triangular loops): at tile t, inner_first +
   * sum(inner_step[d] * t[d]) runs of run_first + sum(run_step[d] * t[d])
   * bytes, each clamped to [0, inner] and [0, run] (none: no bytes). */
  int64_t inner_step[IOPOLY_BAND_MAX_DIMS];
  int64_t run_step[IOPOLY_BAND_MAX_DIMS];
  int64_t inner_first, run_first;
  uint32_t band;               /* index into the table's bands */
  uint16_t array;              /* which array (an index within the SCoP) */
  uint16_t flags;              /* IOPOLY_BAND_TERM_* */
};

/* The tile writes these bytes (a stripe it leaves dirty is written back
 * when evicted, and read back from disk when touched again). */
#define IOPOLY_BAND_TERM_WRITES 0x1
/* The tile reads these bytes (a stripe it touches first is fetched, unless
 * the tile only writes it). */
#define IOPOLY_BAND_TERM_READS 0x2
/* The tile's runs and their length change along the loops (inner_step,
 * run_step): a triangular loop's tiles touch more or fewer bytes; inner
 * and run are the largest. */
#define IOPOLY_BAND_TERM_VARIES 0x4

struct iopoly_tile_table {
  uint32_t abi;            /* IOPOLY_TILE_ABI */
  uint32_t num_versions;   /* the last one is the original order */
  const struct iopoly_tile_version *versions;
  const struct iopoly_tile_term *terms;
  const char *where;       /* "file:line" of the loops, for IOPOLY_VERBOSE */
  int32_t chosen;          /* -1 until the runtime has chosen (a cache) */
  uint32_t flags;          /* IOPOLY_TABLE_* */
  const struct iopoly_band *bands;           /* of the footprint models (NULL: none) */
  const struct iopoly_band_term *band_terms; /* of the footprint models (NULL: none) */
};

/* Hint the next tile's stripes (schedule-informed prefetch). */
#define IOPOLY_TABLE_PREFETCH 0x1
/* The parallel loops of its versions run as tasks on threads (threads=on). */
#define IOPOLY_TABLE_TASKS 0x2

/* 2: band versions and footprint models (the replayed cost); 3: the
 * tiles a band term applies to (from, upto); 4: the version for data that
 * fit the buffer (IOPOLY_VERSION_IN_MEMORY); 5: triangular nests: band
 * terms whose tiles grow or shrink (IOPOLY_BAND_TERM_VARIES), loops whose
 * bounds move with the outer ones (IOPOLY_BAND_BOUNDED); 6: the table's
 * flags (IOPOLY_TABLE_*), which were the prefetch switch. */
#define IOPOLY_TILE_ABI 6

/** Stripes of \p bytes contiguous bytes at an unknown alignment. */
static inline uint64_t iopoly_tile_stripes(uint64_t bytes, uint64_t stripe) {
  return bytes ? (bytes + stripe - 1) / stripe + 1 : 0;
}

/** Stripes one tile of a term touches: its runs, or its span if smaller. */
static inline uint64_t iopoly_tile_box(const struct iopoly_tile_term *t, uint64_t stripe) {
  uint64_t by_runs = t->runs * iopoly_tile_stripes(t->run, stripe);
  uint64_t by_span = iopoly_tile_stripes(t->span, stripe);
  return by_runs < by_span ? by_runs : by_span;
}

/** Estimated fetches and the stripes the largest tile keeps, of version
 *  \p v. A streamed array costs one pass per tile unless it fits beside the
 *  tile; an array touched again by a later group costs nothing more if it
 *  fits in half the buffer. */
static inline double iopoly_tile_cost(const struct iopoly_tile_table *t, uint32_t v, uint64_t stripe,
                                      uint64_t frames, uint64_t *need_out) {
  const struct iopoly_tile_version *ver = &t->versions[v];
  uint64_t need = 0;
  double cost = 0;
  uint32_t k = 0;
  uint64_t seen[4] = {0, 0, 0, 0}; /* arrays touched by an earlier group (ids < 256) */
  while (k < ver->count) {
    /* One group: terms k .. e-1. */
    uint32_t e = k;
    uint64_t box = 0, streams = 0;
    while (e < ver->count && t->terms[ver->first + e].group == t->terms[ver->first + k].group) {
      const struct iopoly_tile_term *term = &t->terms[ver->first + e];
      if (term->flags & IOPOLY_TILE_STREAMED) {
        box += iopoly_tile_stripes(term->window, stripe);
        streams += iopoly_tile_stripes(term->total, stripe);
      } else {
        box += iopoly_tile_box(term, stripe);
      }
      ++e;
    }
    if (!(t->terms[ver->first + k].flags & IOPOLY_TILE_ORIGINAL) && box > need)
      need = box;
    /* Terms of one array in one group are the same stripes, fetched once
     * per tile while the group's box fits: the dearest of them counts. */
    uint64_t counted[4] = {0, 0, 0, 0};
    for (uint32_t j = k; j < e; ++j) {
      uint32_t a = t->terms[ver->first + j].array & 255;
      if (box <= frames && (counted[a / 64] >> (a % 64) & 1))
        continue;
      counted[a / 64] |= 1ULL << (a % 64);
      double dearest = 0;
      for (uint32_t i = j; i < e; ++i) {
        const struct iopoly_tile_term *term = &t->terms[ver->first + i];
        if ((term->array & 255) != a || (i != j && box > frames))
          continue;
        uint64_t all = iopoly_tile_stripes(term->total, stripe);
        uint64_t per_tile = term->tiles * iopoly_tile_box(term, stripe);
        double touch;
        if (term->flags & IOPOLY_TILE_STREAMED)
          touch = (double)(box + streams <= frames ? all : per_tile);
        else if (box > frames) /* (the original order's outer iterations) */
          touch = (double)per_tile; /* one tile's stripes do not stay: every tile fetches its box */
        else
          touch = (double)(all < per_tile ? all : per_tile);
        if ((seen[a / 64] >> (a % 64) & 1) && 2 * all <= frames && touch <= (double)all)
          touch = 0;
        if (touch > dearest)
          dearest = touch;
      }
      cost += dearest;
    }
    for (uint32_t j = k; j < e; ++j) {
      uint32_t a = t->terms[ver->first + j].array & 255;
      seen[a / 64] |= 1ULL << (a % 64);
    }
    k = e;
  }
  if (need_out)
    *need_out = need;
  return cost;
}

/** Stripes the largest group of version \p v touches in one tile (in the
 *  original order: in one iteration of its outermost loop). */
static inline uint64_t iopoly_tile_max_box(const struct iopoly_tile_table *t, uint32_t v, uint64_t stripe) {
  const struct iopoly_tile_version *ver = &t->versions[v];
  uint64_t most = 0;
  uint32_t k = 0;
  while (k < ver->count) {
    uint32_t e = k;
    uint64_t box = 0;
    for (; e < ver->count && t->terms[ver->first + e].group == t->terms[ver->first + k].group; ++e) {
      const struct iopoly_tile_term *term = &t->terms[ver->first + e];
      box += (term->flags & IOPOLY_TILE_STREAMED) ? iopoly_tile_stripes(term->window, stripe)
                                                  : iopoly_tile_box(term, stripe);
    }
    if (box > most)
      most = box;
    k = e;
  }
  return most;
}

#ifdef __cplusplus
}
#endif

#endif /* IOPOLY_TILING_H */
