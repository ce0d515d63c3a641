/*===- iopoly/dist.h - Distributed loops: compiled code and the runtime ---===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The one definition of what the plugin emits for a loop it distributes
 * over MPI ranks (-fplugin-arg-iopoly-mpi=on, plugin/Transform/
 * DistributeLoops.cpp) and libiopoly_mpi implements (runtime/mpi/Dist.cpp).
 * Not a user API. test/plugin-unit/DistLayoutTest.cpp checks the plugin's IR
 * struct against offsetof of this header.
 *
 * A distributed loop runs i = lb + k*step for iteration numbers k in
 * [0, n), n = (ub - lb) / step. Paper 2, section 4: the iterations are
 * grouped into iteration chunks, iterations with the same tag (the set of
 * data chunks they touch); each chunk is a union of pieces [first, end) of
 * iteration numbers, computed at compile time from isl sets. The compiled
 * code asks the runtime for this rank's pieces, in the order it must run
 * them, and runs the original loop body over each:
 *
 *   for (p = 0, np = __iopoly_dist_begin(&d); p < np; ++p) {
 *     __iopoly_dist_piece(&d, p, &first, &end);
 *     for (k = first; k < end; ++k) body(lb + k * step);
 *   }
 *   __iopoly_dist_end(&d);          -- a sync point of the shared arrays
 *
 * The mapping of pieces to ranks comes from the table compiled for the
 * topology of -fplugin-arg-iopoly-topology, or is computed at the first
 * __iopoly_dist_begin from IOPOLY_TOPOLOGY (or a flat hierarchy) when the
 * run's topology or rank count differs.
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_DIST_H
#define IOPOLY_DIST_H

#include "iopoly.h"

#include <stdint.h>

#define IOPOLY_DIST_VERSION 1

/* Mappings (paper 2, section 5: block is the "original" version, intra the
 * intra-processor scheme, cache the inter-processor one). */
#define IOPOLY_MAP_BLOCK 0  /* contiguous blocks of iterations, rank order */
#define IOPOLY_MAP_CYCLIC 1 /* iteration k to rank k mod P */
#define IOPOLY_MAP_INTRA 2  /* blocks, each rank's pieces in its own locality order */
#define IOPOLY_MAP_CACHE 3  /* clustering down the storage-cache tree (Fig. 5) */

#ifdef __cplusplus
extern "C" {
#endif

struct iopoly_dist_loop {
  int64_t version;         /* IOPOLY_DIST_VERSION */
  int64_t mapping;         /* IOPOLY_MAP_* */
  int64_t local;           /* cache: local scheduling of each rank's chunks (sec. 5.4) */
  int64_t lb, ub, step;    /* the loop's bounds as the code runs it */
  int64_t iterations;      /* n */
  int64_t nchunks;         /* iteration chunks */
  int64_t npieces;
  const int64_t *pieces;   /* 3 * npieces: first, end, chunk; ascending first */
  const int64_t *tag_start; /* nchunks + 1 offsets into tags */
  const int64_t *tags;     /* each chunk's data chunks, ascending */
  int64_t ndata;           /* data chunks of all disk-resident arrays */
  int64_t bthres_permille; /* load-balance threshold (paper's BThres), per mille of the average */
  int64_t alpha_permille;  /* local scheduling weights (Fig. 15) */
  int64_t beta_permille;
  const char *topology;    /* signature of the compile-time topology, or NULL */
  int64_t table_ranks;     /* ranks of the compiled table, 0: none */
  const int64_t *table_start; /* table_ranks + 1 offsets (in pieces) into table */
  const int64_t *table;    /* 2 per piece: first, end; each rank's in execution order */
  const char *where;       /* "file.c:12" of the loop */
  void *state;             /* the runtime's, starts NULL */
};

/** Number of pieces this rank runs. */
IOPOLY_API int64_t __iopoly_dist_begin(struct iopoly_dist_loop *d);
/** Piece \p p of this rank: iteration numbers [*first, *end). */
IOPOLY_API void __iopoly_dist_piece(struct iopoly_dist_loop *d, int64_t p, int64_t *first, int64_t *end);
/** After the loop: a sync point of every shared array, then a barrier. */
IOPOLY_API void __iopoly_dist_end(struct iopoly_dist_loop *d);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IOPOLY_DIST_H */
