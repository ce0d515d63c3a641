/*===- ptest.h - Helpers of the partitioning MPI test programs ------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Checks that stop the job with the failing condition and the rank, and
 * the deterministic byte pattern the programs write and verify.
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_TEST_PARTITION_PTEST_H
#define IOPOLY_TEST_PARTITION_PTEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pt_rank = -1;

#define PT_CHECK(cond)                                                                                              \
  do {                                                                                                              \
    if (!(cond)) {                                                                                                  \
      fprintf(stderr, "FAIL [rank %d] %s:%d: %s\n", pt_rank, __FILE__, __LINE__, #cond);                           \
      fflush(stderr);                                                                                               \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                                 \
    }                                                                                                               \
  } while (0)

/* An MPI call that must succeed; its error string otherwise. */
#define PT_MPI(call)                                                                                                \
  do {                                                                                                              \
    int pt_rc = (call);                                                                                             \
    if (pt_rc != MPI_SUCCESS) {                                                                                     \
      char pt_msg[MPI_MAX_ERROR_STRING];                                                                            \
      int pt_len = 0;                                                                                               \
      MPI_Error_string(pt_rc, pt_msg, &pt_len);                                                                     \
      fprintf(stderr, "FAIL [rank %d] %s:%d: %s: %s\n", pt_rank, __FILE__, __LINE__, #call, pt_msg);               \
      fflush(stderr);                                                                                               \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                                 \
    }                                                                                                               \
  } while (0)

/* The byte a writer with `seed` stores at file offset `off`. */
static inline unsigned char pt_byte(unsigned seed, unsigned long long off) {
  unsigned long long x = off * 0x9E3779B97F4A7C15ULL + (unsigned long long)seed * 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return (unsigned char)(x ^ (x >> 17));
}

static inline void pt_fill(unsigned char *p, size_t n, unsigned seed, unsigned long long off) {
  for (size_t i = 0; i < n; ++i)
    p[i] = pt_byte(seed, off + i);
}

/* FNV-1a, to compare what runs read. */
static inline unsigned long long pt_hash(unsigned long long h, const void *p, size_t n) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < n; ++i) {
    h ^= c[i];
    h *= 1099511628211ULL;
  }
  return h;
}

#endif
