/*===- bench.h - Shared helpers of the partitioning benchmarks ------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Options, timers, checked MPI calls, the data pattern, and the one JSON
 * line rank 0 prints at the end (what bench_partition.py reads): the
 * wall time, the slowest rank's time in reads and in writes, the bytes
 * moved and a checksum of everything read (equal checksums: equal reads).
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_BENCH_PARTITION_H
#define IOPOLY_BENCH_PARTITION_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int b_rank = 0, b_size = 1;
static double b_t0, b_read_s, b_write_s;
static unsigned long long b_read_bytes, b_written_bytes, b_hash = 1469598103934665603ULL;

#define B_MPI(call)                                                                                                 \
  do {                                                                                                              \
    int b_rc = (call);                                                                                              \
    if (b_rc != MPI_SUCCESS) {                                                                                      \
      char b_msg[MPI_MAX_ERROR_STRING];                                                                             \
      int b_len = 0;                                                                                                \
      MPI_Error_string(b_rc, b_msg, &b_len);                                                                        \
      fprintf(stderr, "rank %d: %s:%d: %s: %s\n", b_rank, __FILE__, __LINE__, #call, b_msg);                       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                                 \
    }                                                                                                               \
  } while (0)

#define B_CHECK(cond)                                                                                               \
  do {                                                                                                              \
    if (!(cond)) {                                                                                                  \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", b_rank, __FILE__, __LINE__, #cond);                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                                 \
    }                                                                                                               \
  } while (0)

static inline void b_init(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &b_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b_size);
  MPI_Barrier(MPI_COMM_WORLD);
  b_t0 = MPI_Wtime();
}

/* "--name value" as a number, or the default. */
static inline long long b_opt(int argc, char **argv, const char *name, long long dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], name))
      return atoll(argv[i + 1]);
  return dflt;
}
static inline const char *b_str(int argc, char **argv, const char *name, const char *dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], name))
      return argv[i + 1];
  return dflt;
}
static inline int b_flag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; ++i)
    if (!strcmp(argv[i], name))
      return 1;
  return 0;
}

static inline unsigned char b_byte(unsigned seed, unsigned long long off) {
  unsigned long long x = off * 0x9E3779B97F4A7C15ULL + (unsigned long long)seed * 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return (unsigned char)(x ^ (x >> 17));
}

static inline void b_hash_bytes(const void *p, size_t n) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < n; ++i) {
    b_hash ^= c[i];
    b_hash *= 1099511628211ULL;
  }
}

/* Time spent in reads and writes (the call and nothing else). */
#define B_READ(call, bytes)                                                                                         \
  do {                                                                                                              \
    double b_s = MPI_Wtime();                                                                                       \
    B_MPI(call);                                                                                                    \
    b_read_s += MPI_Wtime() - b_s;                                                                                  \
    b_read_bytes += (unsigned long long)(bytes);                                                                    \
  } while (0)
#define B_WRITE(call, bytes)                                                                                        \
  do {                                                                                                              \
    double b_s = MPI_Wtime();                                                                                       \
    B_MPI(call);                                                                                                    \
    b_write_s += MPI_Wtime() - b_s;                                                                                 \
    b_written_bytes += (unsigned long long)(bytes);                                                                 \
  } while (0)

/* The JSON line of rank 0; call after the last MPI_File_close. */
static inline void b_report(const char *bench) {
  MPI_Barrier(MPI_COMM_WORLD);
  double wall = MPI_Wtime() - b_t0, rs = 0, ws = 0;
  MPI_Reduce(&b_read_s, &rs, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&b_write_s, &ws, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  unsigned long long rb = 0, wb = 0, *all = malloc(sizeof(unsigned long long) * (size_t)b_size);
  MPI_Reduce(&b_read_bytes, &rb, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&b_written_bytes, &wb, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Gather(&b_hash, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (b_rank == 0) {
    unsigned long long h = 1469598103934665603ULL;
    for (int i = 0; i < b_size; ++i)
      for (int k = 0; k < 8; ++k) {
        h ^= (all[i] >> (8 * k)) & 0xff;
        h *= 1099511628211ULL;
      }
    printf("{\"bench\":\"%s\",\"nranks\":%d,\"wall_s\":%.6f,\"read_s\":%.6f,\"write_s\":%.6f,"
           "\"bytes_read\":%llu,\"bytes_written\":%llu,\"checksum\":\"%016llx\"}\n",
           bench, b_size, wall, rs, ws, rb, wb, h);
    fflush(stdout);
  }
  free(all);
}

#endif
