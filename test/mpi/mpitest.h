/*===- mpitest.h - Helpers shared by the MPI-IO backend tests -------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Checks that stop the program with the failing condition, the source line,
 * the rank and iopoly_last_error(); the byte pattern that writers store and
 * readers verify; the rank under mpirun for programs that do not link MPI;
 * and a tiny reader of the statistics JSON. Header-only, C11.
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_TEST_MPITEST_H
#define IOPOLY_TEST_MPITEST_H

#include "iopoly.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set by each program once its rank is known (for messages). */
static int mt_rank = -1;

#define MT_CHECK(cond)                                                          \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "FAIL [rank %d] %s:%d: %s\n  iopoly_last_error: %s\n",    \
              mt_rank, __FILE__, __LINE__, #cond, iopoly_last_error());         \
      fflush(stderr);                                                           \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

#define MT_CHECKF(cond, ...)                                                    \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "FAIL [rank %d] %s:%d: %s: ", mt_rank, __FILE__,          \
              __LINE__, #cond);                                                 \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n  iopoly_last_error: %s\n", iopoly_last_error());      \
      fflush(stderr);                                                           \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

/* The byte at offset `off` of an array written with `seed` (a different
 * seed per rank and per array, so that misplaced blocks are caught). */
static inline unsigned char mt_byte(unsigned seed, size_t off) {
  unsigned long long x = (unsigned long long)off * 0x9E3779B97F4A7C15ULL +
                         (unsigned long long)seed * 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return (unsigned char)(x ^ (x >> 17));
}

/* Bytes of block `b` of `a` (the last block may be short). */
static inline size_t mt_block_bytes(const iopoly_array *a, size_t b) {
  size_t S = iopoly_block_size(), total = iopoly_array_bytes(a);
  size_t start = b * S;
  return total - start < S ? total - start : S;
}

/* Writes the pattern of `seed` into every block, attach/release one at a
 * time (the array is 1-D of bytes, so block b is bytes [b*S, b*S+S)). */
static inline void mt_write_all(iopoly_array *a, unsigned seed) {
  size_t S = iopoly_block_size();
  for (size_t b = 0; b < iopoly_num_blocks(a); ++b) {
    unsigned char *p = (unsigned char *)iopoly_attach(a, b, IOPOLY_WRITE);
    MT_CHECKF(p != NULL, "attach block %zu for writing", b);
    size_t n = mt_block_bytes(a, b);
    for (size_t i = 0; i < n; ++i)
      p[i] = mt_byte(seed, b * S + i);
    MT_CHECK(iopoly_release(a, b) == 0);
  }
}

/* Checks one block against the pattern of `seed`. */
static inline void mt_verify_block(iopoly_array *a, size_t b, const unsigned char *p, unsigned seed) {
  size_t S = iopoly_block_size();
  size_t n = mt_block_bytes(a, b);
  for (size_t i = 0; i < n; ++i)
    MT_CHECKF(p[i] == mt_byte(seed, b * S + i),
              "array '%s' block %zu byte %zu is 0x%02x, expected 0x%02x", iopoly_array_name(a), b, i,
              p[i], mt_byte(seed, b * S + i));
}

/* Verifies every byte, visiting blocks starting at `first` (wrapping). */
static inline void mt_verify_all(iopoly_array *a, unsigned seed, size_t first) {
  size_t n = iopoly_num_blocks(a);
  for (size_t k = 0; k < n; ++k) {
    size_t b = (first + k) % n;
    const unsigned char *p = (const unsigned char *)iopoly_attach(a, b, IOPOLY_READ);
    MT_CHECKF(p != NULL, "attach block %zu for reading", b);
    mt_verify_block(a, b, p, seed);
    MT_CHECK(iopoly_release(a, b) == 0);
  }
}

/* The rank under mpirun for a program that does not link MPI (Open MPI,
 * MPICH/Hydra and PMIx set one of these); 0 when run alone. */
static inline int mt_env_rank(void) {
  const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i)
    if (getenv(vars[i]))
      return atoi(getenv(vars[i]));
  return 0;
}

/* The statistics JSON of this process (malloc'ed), through a file. */
static inline char *mt_stats_json(const char *path) {
  MT_CHECKF(iopoly_write_stats(path) == 0, "iopoly_write_stats(%s)", path);
  FILE *f = fopen(path, "rb");
  MT_CHECKF(f != NULL, "cannot read back %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = (char *)malloc((size_t)n + 1);
  MT_CHECK(s != NULL && fread(s, 1, (size_t)n, f) == (size_t)n);
  s[n] = '\0';
  fclose(f);
  return s;
}

/* Fails unless the JSON text contains `needle` verbatim. */
#define MT_EXPECT_JSON(json, needle)                                            \
  MT_CHECKF(strstr((json), (needle)) != NULL, "statistics lack %s in:\n%s",     \
            (needle), (json))

#endif
