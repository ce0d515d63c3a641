/*===- attach-release.c - Cost of attach+release of a resident block ------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Measures the Comanche fast path: iopoly_attach + iopoly_release of a block
 * that is already in the stripe buffer (no I/O), in nanoseconds per pair.
 *
 *   attach-release [ITERS [REPS]]
 *
 * Creates the small array "attach_release_micro" (64 blocks, made resident
 * with IOPOLY_OVERWRITE so nothing is read), then times REPS repetitions
 * (default 9) of ITERS pairs (default 2,000,000) for each case:
 *
 *   one_block   attach/release of block 0 again and again
 *   cycle64     blocks 0..63 in turn (different frames, table entries)
 *   threads2    two threads, each on its own block (lock contention)
 *   mutex_pair  for scale: one uncontended pthread mutex lock+unlock
 *
 * Prints one JSON object on stdout: for each case the median and minimum
 * nanoseconds per pair over the repetitions, by the wall clock and by the
 * calling thread's CPU clock (which leaves out the time other processes of
 * a busy machine ran instead; for threads2, the mean of the two threads). Configure the runtime with the
 * IOPOLY_* variables as usual (IOPOLY_DIR says where the array goes).
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NumBlocks = 64, MaxReps = 101 };

static iopoly_array *A;
static size_t Iters = 2000000;
static volatile unsigned long long Sink;

static double clock_s(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Nanoseconds per pair of one timed loop, by both clocks. */
struct timing {
  double wall, cpu;
};

struct timer {
  double wall, cpu;
};

static struct timer start(void) {
  struct timer t = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_THREAD_CPUTIME_ID)};
  return t;
}

static struct timing stop(struct timer t) {
  struct timing r = {(clock_s(CLOCK_MONOTONIC) - t.wall) * 1e9 / (double)Iters,
                     (clock_s(CLOCK_THREAD_CPUTIME_ID) - t.cpu) * 1e9 / (double)Iters};
  return r;
}

static void die(const char *what) {
  fprintf(stderr, "attach-release: %s: %s\n", what, iopoly_last_error());
  exit(1);
}

/* Cost of one attach+release pair over Iters pairs on blocks first,
 * first+stride, ... (mod NumBlocks). */
static struct timing run_pairs(size_t first, size_t stride) {
  unsigned long long s = 0;
  size_t b = first;
  struct timer t0 = start();
  for (size_t i = 0; i < Iters; ++i) {
    const unsigned char *p = iopoly_attach(A, b, IOPOLY_READ);
    if (!p)
      die("iopoly_attach");
    s += p[i & 63];
    if (iopoly_release(A, b) != 0)
      die("iopoly_release");
    b = (b + stride) % NumBlocks;
  }
  struct timing r = stop(t0);
  Sink += s;
  return r;
}

struct thread_arg {
  size_t block;
  struct timing t;
};

static pthread_barrier_t Barrier;

static void *thread_main(void *p) {
  struct thread_arg *a = p;
  pthread_barrier_wait(&Barrier);
  a->t = run_pairs(a->block, 0);
  return NULL;
}

static struct timing run_threads2(void) {
  pthread_t th[2];
  struct thread_arg args[2] = {{1, {0, 0}}, {2, {0, 0}}};
  pthread_barrier_init(&Barrier, NULL, 2);
  for (int i = 0; i < 2; ++i)
    if (pthread_create(&th[i], NULL, thread_main, &args[i]) != 0) {
      fprintf(stderr, "attach-release: pthread_create failed\n");
      exit(1);
    }
  for (int i = 0; i < 2; ++i)
    pthread_join(th[i], NULL);
  pthread_barrier_destroy(&Barrier);
  struct timing r = {(args[0].t.wall + args[1].t.wall) / 2, (args[0].t.cpu + args[1].t.cpu) / 2};
  return r; /* per pair, per thread */
}

static struct timing run_mutex(void) {
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  unsigned long long s = 0;
  struct timer t0 = start();
  for (size_t i = 0; i < Iters; ++i) {
    pthread_mutex_lock(&mu);
    s += i;
    pthread_mutex_unlock(&mu);
  }
  struct timing r = stop(t0);
  Sink += s;
  return r;
}

static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static void report(const char *name, struct timing (*fn)(void), int reps, int last) {
  double w[MaxReps], c[MaxReps];
  for (int r = 0; r < reps; ++r) {
    struct timing t = fn();
    w[r] = t.wall;
    c[r] = t.cpu;
  }
  qsort(w, (size_t)reps, sizeof w[0], cmp);
  qsort(c, (size_t)reps, sizeof c[0], cmp);
  printf("  \"%s\": {\"median_ns\": %.2f, \"min_ns\": %.2f, \"cpu_median_ns\": %.2f, \"cpu_min_ns\": %.2f}%s\n",
         name, w[reps / 2], w[0], c[reps / 2], c[0], last ? "" : ",");
}

static struct timing one_block(void) { return run_pairs(0, 0); }
static struct timing cycle64(void) { return run_pairs(0, 1); }

int main(int argc, char **argv) {
  int reps = 9;
  if (argc > 1)
    Iters = strtoull(argv[1], NULL, 10);
  if (argc > 2)
    reps = atoi(argv[2]);
  if (Iters == 0 || reps < 1 || reps > MaxReps) {
    fprintf(stderr, "usage: attach-release [ITERS [REPS]] (REPS 1..%d)\n", MaxReps);
    return 2;
  }
  size_t S = iopoly_block_size();
  if (S == 0)
    die("configuration");
  size_t dims[1] = {NumBlocks * S};
  A = iopoly_open("attach_release_micro", 1, 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!A)
    die("iopoly_open");
  if (iopoly_buffer_blocks() < NumBlocks) {
    fprintf(stderr, "attach-release: the buffer must hold %d blocks (IOPOLY_BUFFER)\n", NumBlocks);
    return 1;
  }
  for (size_t b = 0; b < NumBlocks; ++b) {
    unsigned char *p = iopoly_attach(A, b, IOPOLY_WRITE | IOPOLY_OVERWRITE);
    if (!p)
      die("iopoly_attach");
    memset(p, (int)b, S);
    if (iopoly_release(A, b) != 0)
      die("iopoly_release");
  }
  iopoly_counters before, after;
  iopoly_get_counters(&before);
  printf("{\n  \"iters\": %zu,\n  \"reps\": %d,\n  \"block_bytes\": %zu,\n", Iters, reps, S);
  report("one_block", one_block, reps, 0);
  report("cycle64", cycle64, reps, 0);
  report("threads2", run_threads2, reps, 0);
  report("mutex_pair", run_mutex, reps, 0);
  iopoly_get_counters(&after);
  /* The timed loops must not have caused any I/O. */
  printf("  \"fetches_during_timing\": %llu\n}\n", after.stripe_fetches - before.stripe_fetches);
  if (iopoly_close(A) != 0)
    die("iopoly_close");
  return 0;
}
