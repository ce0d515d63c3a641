/*===- iopoly/abi.h - The contract between compiled code and the runtime --===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The one definition of what the plugin's lowering emits and the runtime
 * implements: the window through which lowered accesses reach the stripe
 * buffer, the source sites compiled code names, and the entry points lowered
 * code calls. The plugin (plugin/Support/RuntimeABI.cpp) builds its IR types
 * from the constants here, and test/plugin-unit/AbiLayoutTest.cpp checks its
 * generated struct layouts against offsetof of this header. Not a user API.
 *
 * A lowered function owns a small, fixed table of windows in its frame
 * (at most IOPOLY_MAX_WINDOWS, however many access sites it has: sites that
 * walk the same stream share one). The inline fast path is
 * "off = p - lo; if (off < limit) access p + delta": one subtraction, one
 * compare, one add. A window maps either the stripe it holds attached
 * (delta = frame - stripe address), or a run of attached stripes mapped at
 * their own addresses (views, runtime/memory/FrameMemory.h; delta = 0), or a
 * range of ordinary memory (delta = 0), so that pointers the compiler cannot
 * classify take the same test. limit keeps 63 bytes of slack so that any
 * access of up to 64 bytes that passes the test lies inside the window; an
 * empty window has limit 0. Everything else goes to __iopoly_translate.
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_ABI_H
#define IOPOLY_ABI_H

#include "iopoly.h"
#include "iopoly/tiling.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Bumped whenever anything below changes layout or meaning.
 *  2: windows shared by sites (no per-window bounce buffer), source sites,
 *     the shape of disk-resident globals.
 *  3: the file layout of disk-resident globals (__iopoly_global_init).
 *  4: locality sets run as tasks (struct iopoly_set_table, __iopoly_run_sets,
 *     __iopoly_par_*).
 *  5: layout profiles (struct iopoly_layout_sites, __iopoly_layout_profile).
 *  6: version tables carry footprint models and band versions
 *     (iopoly/tiling.h, IOPOLY_TILE_ABI 2).
 *  7: IOPOLY_TRANSLATE_PROBE (strip drivers of conditional accesses).
 *  8: footprint-model terms name the tiles they apply to
 *     (IOPOLY_TILE_ABI 3).
 *  9: a version for data that fit the buffer (IOPOLY_VERSION_IN_MEMORY,
 *     IOPOLY_TILE_ABI 4).
 * 10: band terms of triangular tiles (IOPOLY_BAND_TERM_VARIES,
 *     IOPOLY_TILE_ABI 5).
 * 11: the file layout of allocated arrays (__iopoly_alloc_layout). */
#define IOPOLY_ABI_VERSION 11

#ifdef __cplusplus
extern "C" {
#endif

/** Largest single access the fast path serves (bytes). */
#define IOPOLY_MAX_ACCESS 64

/** Most windows a lowered function reserves (per-access sites and strip
 *  drivers together): the frame the lowering adds is bounded by this many
 *  times sizeof(struct iopoly_window). */
#define IOPOLY_MAX_WINDOWS 128

struct iopoly_window {
  uintptr_t lo;        /* first address of the window */
  uintptr_t limit;     /* fast path iff p - lo < limit */
  intptr_t delta;      /* real address = p + delta */
  iopoly_array *array; /* array of the attached stripes, or NULL */
  size_t stripe;       /* first attached stripe */
  size_t run;          /* number of attached stripes (views: a run) */
  struct iopoly_window *next, *prev; /* this thread's windows holding stripes */
  uint32_t flags;      /* IOPOLY_WINDOW_* */
  uint32_t reserved;
};

/* The window's stripes may not be taken back while it holds them: code
 * keeps its delta in a register for a whole strip (StripMine.cpp). Other
 * windows re-read their fields before every access, so when the buffer is
 * full the runtime may release their stripes (they translate again). */
#define IOPOLY_WINDOW_PINNED 0x1

/* A source location compiled code passes to the slow path, so that the
 * runtime can say which loop makes an array thrash. Constant data of the
 * compiled module; its address is the site's identity. */
struct iopoly_site {
  const char *file;     /* source file (NULL: unknown) */
  const char *function; /* enclosing function (source name) */
  uint32_t line, column; /* of the loop, else of the access (0: unknown) */
  int64_t stride;       /* bytes the access moves per iteration of its
                           innermost loop; 0 when not affine or unknown */
};

/* With IOPOLY_READ or IOPOLY_WRITE in __iopoly_translate's mode: the
 * address is translated ahead of time and may never be accessed (a strip
 * driver translating a conditional access at the strip's first iteration,
 * where its guard may be false). An address outside every array then does
 * not stop the program: the window maps, in place, the stretch of the
 * arena around it that holds no array's bytes (an access that does run
 * there faults on PROT_NONE pages and is reported as out of bounds); an
 * access that starts in an array and runs past its end leaves the window
 * as it was, and the driver runs that iteration through the checked copy. */
#define IOPOLY_TRANSLATE_PROBE 0x100

/* Slow path: makes \p win map an address range containing [p, p+len) and
 * returns the real address for p. Mode is IOPOLY_READ or IOPOLY_WRITE. An
 * access inside the window returns at once (code built at -O0 calls this
 * for every access instead of testing inline). An
 * access that straddles two stripes is served from this thread's bounce
 * buffer: the returned address points there, and a store must be followed
 * by __iopoly_commit before the next call. \p site may be NULL. Stops the
 * program with a message naming the array on an out-of-bounds access or an
 * I/O error (compiled code has no way to handle them). */
IOPOLY_API void *__iopoly_translate(struct iopoly_window *win, void *p, size_t len, int mode,
                                    const struct iopoly_site *site);
/* After a store through the address __iopoly_translate returned: copies a
 * straddling access back into its two stripes (no-op otherwise). */
IOPOLY_API void __iopoly_commit(void);
/* At a loop-nest or function exit: releases the stripes the window holds
 * (compiled code calls it only when win->array is not NULL). */
IOPOLY_API void __iopoly_window_release(struct iopoly_window *win);

/* Module constructor for a disk-resident global: creates or reopens the
 * array \p name with elements of \p elem_size bytes in \p ndims dimensions
 * \p dims, as declared (double A[1024][1024]: 8, 2, {1024, 1024}), so that
 * other programs can iopoly_open it; zero-filled, then \p init (NULL: all
 * zero) copied in. Stores its base address into *slot. \p layout is the
 * file layout the compiler chose (paper 1, section 4; iopoly_open_layout's
 * meaning; NULL: row-major): the module then addresses the array as the
 * permuted C array (double A[1024][512] in layout {1,0} is compiled as
 * A'[512][1024], A'[j][i] for A[i][j]), whose bytes are the file's; the
 * header records the declared dims and the layout, so that other programs
 * see the declared shape. \p init is in the permuted order too. */
IOPOLY_API void __iopoly_global_init(const char *name, size_t elem_size, int ndims, const size_t *dims,
                                     const int *layout, const void *init, void **slot);

/* After an allocation whose file layout the compiler chose (an array
 * allocated in the module and passed only to its functions): \p p (the
 * allocation's result) holds \p ndims dimensions \p dims of \p elem_size-byte
 * elements as declared, stored in layout \p layout. If \p p is the start
 * of iopoly_alloc memory, its file header records that shape and layout
 * (the files were just created or truncated), or already does; a file that
 * holds data in another layout, or data written without one, stops the
 * program with a message naming the array, both layouts and the command
 * that converts it. Nothing for ordinary memory or a NULL \p p. */
IOPOLY_API void __iopoly_alloc_layout(void *p, size_t elem_size, int ndims, const size_t *dims, const int *layout);

/* Module constructor: warns once if the striping the compiler assumed
 * (-fplugin-arg-iopoly-stripe/disks) differs from the runtime's. */
IOPOLY_API void __iopoly_check_striping(size_t stripe, size_t disks, const char *module);

/* Restructured loops compiled in several versions (iopoly/tiling.h): the
 * version to run with this run's stripe and buffer. Computed once per
 * table (cached in it); cheap enough to call before every execution. */
IOPOLY_API int __iopoly_pick_version(struct iopoly_tile_table *table);

/* Locality sets run as tasks on IOPOLY_THREADS threads that share the
 * stripe buffer (paper 1, section 5; runtime/sched/). Set k (0-based, in
 * the sequential restructured order) touches the disks whose bits are set
 * in disks[k * disk_words .. k * disk_words + disk_words - 1] (bit d of
 * word d / 64 is disk d), pins at most stripes[k] stripes while it runs
 * (stripes NULL or 0: unknown, counted as one), and may start only when the
 * sets preds[pred_start[k] .. pred_start[k + 1] - 1] have finished (every
 * one of them smaller than k). */
struct iopoly_set_table {
  uint32_t abi;              /* IOPOLY_SET_ABI */
  uint32_t num_sets;
  uint32_t disk_words;       /* 64-bit words per disk map */
  uint32_t reserved;
  const uint64_t *disks;     /* num_sets * disk_words words */
  const uint64_t *stripes;   /* num_sets entries, or NULL */
  const uint32_t *pred_start; /* num_sets + 1 entries */
  const uint32_t *preds;
  const char *where;         /* "file:line" of the loops, for messages */
};

#define IOPOLY_SET_ABI 1

/* Runs body(ctx, k) once for every set k of \p table, each after its
 * predecessors, on IOPOLY_THREADS threads (the caller is one of them) with
 * the IOPOLY_SCHED policy; returns when all have run. body must be safe to
 * run concurrently for sets that do not depend on each other. A malformed
 * table (cycle, predecessor out of range, wrong abi) stops the program with
 * a message naming table->where. */
IOPOLY_API void __iopoly_run_sets(const struct iopoly_set_table *table, void (*body)(void *ctx, uint32_t set),
                                  void *ctx);

/* Parallel loops of restructured code (-fplugin-arg-iopoly-threads=on):
 * Polly's OpenMP code generation emits the GOMP work-sharing protocol and
 * the plugin points its four calls here (runtime/sched/ParallelLoop.h).
 * __iopoly_par_start makes the iterations start, start + incr, ... < end
 * tasks and starts IOPOLY_THREADS - 1 threads that call fn(data); the
 * caller then calls fn(data) too, and __iopoly_par_end when it returns.
 * Inside fn, __iopoly_par_next gives the calling thread its next iteration
 * ([*lo, *hi)), chosen by the IOPOLY_SCHED policy from the disk maps of the
 * region's tiles, or returns false when none is left. nthreads is ignored. */
IOPOLY_API void __iopoly_par_start(void (*fn)(void *), void *data, unsigned nthreads, long start, long end,
                                   long incr);
IOPOLY_API bool __iopoly_par_next(long *lo, long *hi);
IOPOLY_API void __iopoly_par_end_nowait(void);
IOPOLY_API void __iopoly_par_end(void);

/* File layouts from a profile (paper 1, section 4): a module built with
 * -fplugin-arg-iopoly-layout=instrument counts, for every access site of
 * every disk-resident global whose layout can change, how many times it
 * runs (counts[k] for sites[k], atomic adds). Its constructor registers the
 * table; at exit the runtime writes every registered table's counts to
 * IOPOLY_LAYOUT_PROFILE, which -fplugin-arg-iopoly-layout=profile reads
 * (format: plugin/Support/LayoutProfile.h; first line
 * IOPOLY_LAYOUT_PROFILE_HEADER). */
struct iopoly_layout_site {
  const char *array;    /* the array's name (as in its files) */
  const char *function; /* enclosing function (IR name) */
  const char *where;    /* "file:line:col" of the access, or "-" */
  uint32_t site;        /* its number among the accesses of array in function */
  uint32_t store;       /* 1 store, 0 load */
};

struct iopoly_layout_sites {
  uint32_t abi;       /* IOPOLY_LAYOUT_SITES_ABI */
  uint32_t num_sites;
  const char *unit;   /* the module's source file */
  const struct iopoly_layout_site *sites;
  uint64_t *counts;   /* num_sites counters */
};

#define IOPOLY_LAYOUT_SITES_ABI 1
#define IOPOLY_LAYOUT_PROFILE_HEADER "iopoly-layout-profile 1"

IOPOLY_API void __iopoly_layout_profile(const struct iopoly_layout_sites *table);

/* memset/memcpy/memmove on memory that may be disk-resident. */
IOPOLY_API void __iopoly_memset(void *dst, int value, size_t n);
IOPOLY_API void __iopoly_memcpy(void *dst, const void *src, size_t n);
IOPOLY_API void __iopoly_memmove(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* IOPOLY_ABI_H */
