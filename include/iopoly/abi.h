/*===- iopoly/abi.h - The contract between compiled code and the runtime --===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The one definition of what the plugin's lowering emits and the runtime
 * implements: the window of a lowered access site and the entry points
 * lowered code calls. The plugin (plugin/Support/RuntimeABI.cpp) builds its
 * IR types from the constants here, and test/plugin-unit/AbiLayoutTest.cpp
 * checks its generated struct layout against offsetof of this header.
 * Not a user API.
 *
 * Every lowered load or store site owns a window in its function's frame.
 * The inline fast path is "off = p - lo; if (off < limit) access p + delta":
 * one subtraction, one compare, one add. A window maps either the stripe the
 * site holds attached (delta = frame - stripe address), or a run of attached
 * stripes mapped at their own addresses (views, runtime/memory/FrameMemory.h;
 * delta = 0), or a range of ordinary memory (delta = 0). limit keeps 63 bytes
 * of slack so that any access of up to 64 bytes that passes the test lies
 * inside the window; an empty window has limit 0. Everything else goes to
 * __iopoly_translate.
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_ABI_H
#define IOPOLY_ABI_H

#include "iopoly.h"
#include "iopoly/tiling.h"

#include <stddef.h>
#include <stdint.h>

/** Bumped whenever anything below changes layout or meaning. */
#define IOPOLY_ABI_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/** Largest single access the fast path serves (bytes). */
#define IOPOLY_MAX_ACCESS 64

struct iopoly_window {
  uintptr_t lo;       /* first address of the window */
  uintptr_t limit;    /* fast path iff p - lo < limit */
  intptr_t delta;     /* real address = p + delta */
  iopoly_array *array; /* array of the attached stripes, or NULL */
  size_t stripe;      /* first attached stripe */
  size_t run;         /* number of attached stripes (views: a run) */
  struct iopoly_window *next, *prev; /* this thread's windows holding stripes */
  uintptr_t bounce_addr; /* access straddling two stripes: its address */
  uint32_t bounce_len;   /* and length (0: none pending) */
  uint32_t mode;
  uint32_t flags;        /* IOPOLY_WINDOW_* */
  unsigned char bounce[IOPOLY_MAX_ACCESS] __attribute__((aligned(64)));
};

/* The window's stripes may not be taken back while it holds them: code
 * keeps its delta in a register for a whole strip (StripMine.cpp). Other
 * windows re-read their fields before every access, so when the buffer is
 * full the runtime may release their stripes (they translate again). */
#define IOPOLY_WINDOW_PINNED 0x1

/* Slow path: makes \p win map an address range containing [p, p+len) and
 * returns the real address for p. Mode is IOPOLY_READ or IOPOLY_WRITE.
 * Stops the program with a message naming the array on an out-of-bounds
 * access or an I/O error (compiled code has no way to handle them). */
IOPOLY_API void *__iopoly_translate(struct iopoly_window *win, void *p, size_t len, int mode);
/* After a store through the address __iopoly_translate returned: copies a
 * straddling access back into its two stripes (no-op otherwise). */
IOPOLY_API void __iopoly_commit(struct iopoly_window *win);
/* At function exit: releases the stripe the window holds. */
IOPOLY_API void __iopoly_window_release(struct iopoly_window *win);

/* Module constructor for a disk-resident global: creates or reopens the
 * array \p name of \p bytes bytes, zero-filled, then copies \p init (NULL:
 * all zero) into it, and stores its base address into *slot. */
IOPOLY_API void __iopoly_global_init(const char *name, size_t bytes, const void *init, void **slot);

/* Module constructor: warns once if the striping the compiler assumed
 * (-fplugin-arg-iopoly-stripe/disks) differs from the runtime's. */
IOPOLY_API void __iopoly_check_striping(size_t stripe, size_t disks, const char *module);

/* Restructured loops compiled in several versions (iopoly/tiling.h): the
 * version to run with this run's stripe and buffer. Computed once per
 * table (cached in it); cheap enough to call before every execution. */
IOPOLY_API int __iopoly_pick_version(struct iopoly_tile_table *table);

/* memset/memcpy/memmove on memory that may be disk-resident. */
IOPOLY_API void __iopoly_memset(void *dst, int value, size_t n);
IOPOLY_API void __iopoly_memcpy(void *dst, const void *src, size_t n);
IOPOLY_API void __iopoly_memmove(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* IOPOLY_ABI_H */
