/*===- iopoly.h - Public C API of the iopoly out-of-core runtime -----------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Disk-resident arrays striped over T disks, served through one LRU stripe
 * buffer shared by every array of the process. Blocks (stripes) are attached
 * and released in the style of Comanche (paper 3, section 2): an attached
 * block is pinned and is never evicted until it is released.
 *
 * Usable from C11 and C++. Every function that can fail returns NULL or -1
 * ((size_t)-1 for iopoly_offset) and leaves a readable message in
 * iopoly_last_error() (per thread). No function throws or aborts on bad
 * input: absurd sizes, NULL and out-of-range arguments are errors.
 * Configuration comes from IOPOLY_* environment variables (see README).
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_H
#define IOPOLY_H

#include <stddef.h>

#define IOPOLY_VERSION_MAJOR 0
#define IOPOLY_VERSION_MINOR 1
#define IOPOLY_VERSION_PATCH 0
#define IOPOLY_VERSION 100 /* MAJOR*10000 + MINOR*100 + PATCH */

#if defined(_WIN32)
#define IOPOLY_API __declspec(dllexport)
#else
#define IOPOLY_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** An open disk-resident array. */
typedef struct iopoly_array iopoly_array;
/** A seeker/reaper walking a sequence of steps (paper 3, section 3). */
typedef struct iopoly_seeker iopoly_seeker;

/* Flags of iopoly_open. Exactly one of RDONLY, RDWR, CREATE is required. */
#define IOPOLY_RDONLY 0x1 /**< open an existing array for reading */
#define IOPOLY_RDWR 0x2   /**< open an existing array for reading and writing */
#define IOPOLY_CREATE 0x4 /**< create if missing, else open it read-write */
#define IOPOLY_TRUNC 0x8  /**< with CREATE: start from an all-zero array */

/* Modes of iopoly_attach. */
#define IOPOLY_READ 0x1      /**< the caller reads the block */
#define IOPOLY_WRITE 0x2     /**< the caller may write: block becomes dirty */
#define IOPOLY_OVERWRITE 0x4 /**< with WRITE: every byte will be written, so
                                  the old contents are not fetched (zeroed) */

#define IOPOLY_MAX_DIMS 8

/** Exit status of a process whose arrays could not all be written back when
 *  it exited without closing them (a full disk, say): the blocks concerned
 *  are saved to a rescue file that 'iopoly-fsck NAME --repair' writes back,
 *  and the process ends with this status instead of its own (EX_IOERR). */
#define IOPOLY_EXIT_UNSAVED 74

/* ---- Arrays ----------------------------------------------------------- */

/** Opens (or creates) the array \p name: \p ndims dimensions of sizes
 *  \p dims, elements of \p elem_size bytes, stored row-major in its file.
 *  Reopening an existing array with a different shape, element size, stripe
 *  size, disk count or layout is an error that names both settings. */
IOPOLY_API iopoly_array *iopoly_open(const char *name, size_t elem_size,
                                     int ndims, const size_t dims[],
                                     int flags);

/** As iopoly_open, with an explicit file layout: the file stores the array
 *  row-major over the dimension order layout[0], ..., layout[ndims-1] (a
 *  permutation of 0..ndims-1; {1,0} is column-major for 2-D). NULL means
 *  row-major. This is the dimension permutation of paper 1, section 4. */
IOPOLY_API iopoly_array *iopoly_open_layout(const char *name, size_t elem_size,
                                            int ndims, const size_t dims[],
                                            const int layout[], int flags);

/** Writes back every dirty block, closes the files and frees the handle.
 *  Fails (and keeps the array open) while blocks are still attached. */
IOPOLY_API int iopoly_close(iopoly_array *a);

/** Writes back the dirty blocks of \p a (of every array when NULL) and
 *  syncs the files. Data stays cached. */
IOPOLY_API int iopoly_flush(iopoly_array *a);

/** Sync point of an array shared by MPI ranks (see iopoly_mpi.h),
 *  collective over its ranks: every rank's changes reach the files, then
 *  each rank drops the copies that another rank may have changed, so that
 *  every rank sees every change made before the sync. NULL: every shared
 *  array, in the order they were opened. For an array of this process
 *  alone it is iopoly_flush. */
IOPOLY_API int iopoly_sync(iopoly_array *a);

/** The last error of the calling thread ("" when none). */
IOPOLY_API const char *iopoly_last_error(void);

/* ---- Geometry --------------------------------------------------------- */

/** Stripe (block) size S in bytes: IOPOLY_STRIPE. */
IOPOLY_API size_t iopoly_block_size(void);
/** Number of disks T the stripes are placed on, round-robin. */
IOPOLY_API size_t iopoly_num_disks(void);
/** Capacity of the stripe buffer in blocks (IOPOLY_BUFFER / S). */
IOPOLY_API size_t iopoly_buffer_blocks(void);
/** Number of blocks of \p a: ceil(bytes / S). */
IOPOLY_API size_t iopoly_num_blocks(const iopoly_array *a);
/** Size of the array in bytes (product of dims times elem_size). */
IOPOLY_API size_t iopoly_array_bytes(const iopoly_array *a);
/** Name given at open. */
IOPOLY_API const char *iopoly_array_name(const iopoly_array *a);
/** Disk that holds block \p block: block % T. */
IOPOLY_API size_t iopoly_block_disk(const iopoly_array *a, size_t block);
/** Byte offset of element \p index (ndims subscripts, in the array's own
 *  dimension order) in the file layout; block = offset / S. (size_t)-1 with
 *  an error for a NULL \p index or a subscript out of range. */
IOPOLY_API size_t iopoly_offset(const iopoly_array *a, const size_t index[]);

/* ---- Blocks (Comanche attach/release) --------------------------------- */

/** Pins block \p block in the buffer, fetching it if needed, and returns
 *  its bytes (S bytes; fewer for the last block). Attaches nest: each needs
 *  a release. Returns NULL (with an error) for an out-of-range block, a
 *  write to a read-only array, an I/O error, or when every buffer slot is
 *  already attached. */
IOPOLY_API void *iopoly_attach(iopoly_array *a, size_t block, int mode);

/** Unpins a block attached before. Releasing a block that is not attached is
 *  an error. */
IOPOLY_API int iopoly_release(iopoly_array *a, size_t block);

/** Asynchronous hint: start fetching \p block in the background. Returns 0
 *  when the hint was taken or is redundant, 1 when it was dropped (buffer
 *  full of attached blocks, prefetch disabled), -1 on a bad argument. */
IOPOLY_API int iopoly_prefetch(iopoly_array *a, size_t block);

/* ---- Seeker/reaper (paper 3, section 3) ------------------------------- */

/** Fills \p out (capacity \p max) with the blocks step \p step touches and
 *  returns how many; duplicates are allowed. Returning more than max is an
 *  error. It is called twice per step (when the step enters the look-ahead
 *  window and when it becomes the current step), so the seeker's memory does
 *  not grow with the look-ahead; both calls must give the same blocks. */
typedef size_t (*iopoly_step_fn)(void *ctx, size_t step, size_t *out,
                                 size_t max);

/** A helper that walks \p nsteps steps: the seeker attaches the blocks of
 *  the next \p lookahead steps ahead of time (fetching in the background),
 *  the reaper releases each block after the last step of the window that
 *  needs it. \p max_blocks_per_step bounds the callback's output. Each block
 *  is attached with \p mode. */
IOPOLY_API iopoly_seeker *iopoly_seeker_open(iopoly_array *a, size_t nsteps,
                                             iopoly_step_fn steps, void *ctx,
                                             size_t max_blocks_per_step,
                                             size_t lookahead, int mode);

/** Moves to the next step (the first call moves to step 0): waits until all
 *  its blocks are in the buffer. Returns the step number, or -1 after the
 *  last step or on error. */
IOPOLY_API long iopoly_seeker_next(iopoly_seeker *s);

/** Address of \p block, which the current step must touch (it is attached
 *  by the seeker); NULL with an error otherwise. */
IOPOLY_API void *iopoly_seeker_block(iopoly_seeker *s, size_t block);

/** Releases everything the seeker holds and frees it. */
IOPOLY_API int iopoly_seeker_close(iopoly_seeker *s);

/* ---- Disk-resident memory for compiled code --------------------------- */

/** Reserves \p bytes of disk-resident memory backed by the array \p name
 *  (created, or reused when it exists with the same size). The address
 *  range is not mapped: code compiled with the iopoly plugin reaches it
 *  through the stripe buffer; any other access stops the program with an
 *  error naming the array. */
IOPOLY_API void *iopoly_alloc(const char *name, size_t bytes);

/** As iopoly_alloc; \p flags is IOPOLY_CREATE (reuse) or
 *  IOPOLY_CREATE|IOPOLY_TRUNC (start from zeros). */
IOPOLY_API void *iopoly_alloc_flags(const char *name, size_t bytes, int flags);

/** As iopoly_alloc_flags, for \p count elements of \p elem_size bytes: the
 *  files record the element size (iopoly-fsck shows it; reusing the array
 *  with another element size is refused with both named). In an MPI
 *  program, where ranks write different elements of one shared stripe, a
 *  rank's changed elements go back as runs of whole elements, one transfer
 *  per run, instead of one per run of changed bytes. */
IOPOLY_API void *iopoly_alloc_elems(const char *name, size_t count, size_t elem_size, int flags);

/** Writes back and releases memory from iopoly_alloc. */
IOPOLY_API int iopoly_free(void *p);

/** The array behind a pointer into iopoly_alloc memory, or NULL when \p p is
 *  ordinary memory. One subtraction and one table load. */
IOPOLY_API iopoly_array *iopoly_array_of(const void *p);

/** Base address of the iopoly_alloc memory of \p a (NULL if it has none). */
IOPOLY_API void *iopoly_array_base(const iopoly_array *a);

/* ---- Statistics ------------------------------------------------------- */

/** Writes the statistics JSON object (see README) to \p path ("-" for
 *  stderr). IOPOLY_STATS=<file> does the same at exit. */
IOPOLY_API int iopoly_write_stats(const char *path);

/** Clears the counters (not the buffer contents). */
IOPOLY_API void iopoly_reset_stats(void);

/** A few counters for programs that want them without JSON. */
typedef struct iopoly_counters {
  unsigned long long stripe_fetches;
  unsigned long long distinct_stripes;
  unsigned long long buffer_hits;
  unsigned long long evictions;
  unsigned long long writebacks;
  unsigned long long bytes_read;
  unsigned long long bytes_written;
  double io_seconds;
  double modeled_io_seconds;
} iopoly_counters;

IOPOLY_API void iopoly_get_counters(iopoly_counters *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IOPOLY_H */
