/*===- wavefront.c - The Comanche wavefront benchmark (paper 3, Fig. 4.1) -===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Sums every anti-diagonal of an N x N matrix of doubles, in the order of
 * paper 3, section 3, and writes the 2N-1 sums to an output file. Versions:
 *
 *   wavefront init   N RAW    create the iopoly array "wf<N>" and the plain
 *                             file RAW with the same values in (-1, 1)
 *   wavefront mmap   N RAW OUT [random]  the plain kernel over an mmap of
 *                             RAW; "random" adds madvise(MADV_RANDOM), which
 *                             turns off the kernel's read-around. Stopped by
 *                             SIGTERM, it prints how far it got and exits 124
 *   wavefront attach N OUT    iopoly attach/release: each row's current
 *                             block stays attached while the diagonals
 *                             cross it, then is released (no prefetch)
 *   wavefront seeker N OUT [LOOKAHEAD]  the same walk through the
 *                             seeker/reaper: blocks of the next LOOKAHEAD
 *                             diagonals are attached ahead, in the
 *                             background, and released behind
 *
 * Every version prints "checksum <hex>" of the sums; they must agree, then
 * "wall <s>" and what the kernel counted for the process: "majflt <n>"
 * (major page faults), "read_bytes <n>" (bytes it caused to be read from
 * storage, /proc/self/io), "maxrss_kib <n>" and the CPU time "user_s <s>",
 * "sys_s <s>".
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) {
  fprintf(stderr, "wavefront: %s: %s\n", what, errno ? strerror(errno) : iopoly_last_error());
  exit(1);
}

/* iopoly's messages already name the failing function. */
static void die_iopoly(const char *what) {
  const char *e = iopoly_last_error();
  fprintf(stderr, "wavefront: %s%s%s\n", strncmp(e, what, strlen(what)) ? what : "",
          strncmp(e, what, strlen(what)) ? ": " : "", e);
  exit(1);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Deterministic values in (-1, 1) from the element index (splitmix64). */
static double value_at(uint64_t i) {
  uint64_t z = i + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return ((double)(z >> 11) / 9007199254740992.0) * 2.0 - 1.0;
}

static uint64_t checksum(const double *s, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) {
    uint64_t b;
    memcpy(&b, &s[i], 8);
    h = (h ^ b) * 1099511628211ULL;
  }
  return h;
}

static void write_sums(const char *out, const double *sums, size_t n) {
  FILE *f = fopen(out, "wb");
  if (!f || fwrite(sums, sizeof(double), n, f) != n || fclose(f) != 0)
    die(out);
  printf("checksum %016llx\n", (unsigned long long)checksum(sums, n));
}

static iopoly_array *open_matrix(size_t n, int flags) {
  char name[64];
  snprintf(name, sizeof name, "wf%zu", n);
  size_t dims[2] = {n, n};
  iopoly_array *a = iopoly_open(name, sizeof(double), 2, dims, flags);
  if (!a)
    die_iopoly("iopoly_open");
  return a;
}

/* What the kernel counted for this process: major faults, bytes read from
 * storage (the mmap version's I/O volume) and peak resident set. */
static void report_usage(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    printf("majflt %ld\nmaxrss_kib %ld\nuser_s %.3f\nsys_s %.3f\n", ru.ru_majflt, ru.ru_maxrss,
           ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
  FILE *f = fopen("/proc/self/io", "r");
  char line[128];
  unsigned long long v;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "read_bytes: %llu", &v) == 1)
      printf("read_bytes %llu\n", v);
  if (f)
    fclose(f);
}

/* ---- init -------------------------------------------------------------- */

static void do_init(size_t n, const char *raw) {
  iopoly_array *a = open_matrix(n, IOPOLY_CREATE | IOPOLY_TRUNC);
  size_t S = iopoly_block_size(), nb = iopoly_num_blocks(a), total = n * n;
  for (size_t b = 0; b < nb; ++b) {
    double *p = iopoly_attach(a, b, IOPOLY_WRITE | IOPOLY_OVERWRITE);
    if (!p)
      die_iopoly("iopoly_attach");
    size_t first = b * S / 8, last = first + S / 8 > total ? total : first + S / 8;
    for (size_t i = first; i < last; ++i)
      p[i - first] = value_at(i);
    if (iopoly_release(a, b) != 0)
      die_iopoly("iopoly_release");
  }
  if (iopoly_close(a) != 0)
    die_iopoly("iopoly_close");
  int fd = open(raw, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0)
    die(raw);
  enum { Chunk = 1 << 16 };
  static double buf[Chunk];
  for (size_t i = 0; i < total; i += Chunk) {
    size_t m = total - i < Chunk ? total - i : Chunk;
    for (size_t k = 0; k < m; ++k)
      buf[k] = value_at(i + k);
    if (write(fd, buf, m * 8) != (ssize_t)(m * 8))
      die(raw);
  }
  if (fsync(fd) != 0 || close(fd) != 0)
    die(raw);
}

/* ---- the plain kernel over mmap (paper 3, section 3) -------------------- */

/* Diagonals finished so far, for a run stopped by SIGTERM (a benchmark time
 * limit): the handler prints "diagonals_done <k> <total>" and the kernel's
 * counters so far ("read_bytes <n>", "majflt <n>"), then exits with 124. */
static volatile size_t diagonals_done, diagonals_total;

static void put_line(const char *key, unsigned long long v, unsigned long long w, int two) {
  char buf[96], num[24];
  size_t len = 0;
  for (const char *k = key; *k; ++k)
    buf[len++] = *k;
  for (int i = 0; i < 1 + two; ++i) {
    unsigned long long x = i ? w : v;
    int d = 0;
    do
      num[d++] = (char)('0' + x % 10);
    while ((x /= 10) != 0);
    buf[len++] = ' ';
    while (d > 0)
      buf[len++] = num[--d];
  }
  buf[len++] = '\n';
  (void)!write(1, buf, len);
}

static void on_term(int sig) {
  (void)sig;
  put_line("diagonals_done", diagonals_done, diagonals_total, 1);
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    put_line("majflt", (unsigned long long)ru.ru_majflt, 0, 0);
  char io[1024];
  int fd = open("/proc/self/io", O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, io, sizeof io - 1) : -1;
  if (n > 0) {
    io[n] = 0;
    char *p = strstr(io, "\nread_bytes: ");
    if (p) {
      unsigned long long v = 0;
      for (p += 13; *p >= '0' && *p <= '9'; ++p)
        v = v * 10 + (unsigned long long)(*p - '0');
      put_line("read_bytes", v, 0, 0);
    }
  }
  _exit(124);
}

static void do_mmap(size_t n, const char *raw, const char *out, int advise_random) {
  int fd = open(raw, O_RDONLY);
  if (fd < 0)
    die(raw);
  struct stat st;
  if (fstat(fd, &st) != 0 || (size_t)st.st_size != n * n * 8) {
    fprintf(stderr, "wavefront: %s is not %zu x %zu doubles\n", raw, n, n);
    exit(1);
  }
  const double *A = mmap(NULL, n * n * 8, PROT_READ, MAP_SHARED, fd, 0);
  if (A == MAP_FAILED)
    die("mmap");
  if (advise_random && madvise((void *)A, n * n * 8, MADV_RANDOM) != 0)
    die("madvise");
  double *sums = malloc((2 * n - 1) * sizeof(double));
  diagonals_total = 2 * n - 1;
  signal(SIGTERM, on_term);
  size_t k = 0;
  for (size_t sum = 0; sum < n; ++sum) {
    double total = 0;
    for (size_t row = 0; row <= sum; ++row)
      total += A[row * n + (sum - row)];
    sums[k++] = total;
    diagonals_done = k;
  }
  for (size_t sum = n; sum < 2 * n - 1; ++sum) {
    double total = 0;
    for (size_t row = sum - (n - 1); row < n; ++row)
      total += A[row * n + (sum - row)];
    sums[k++] = total;
    diagonals_done = k;
  }
  write_sums(out, sums, k);
  free(sums);
}

/* ---- attach/release, one attached block per row ------------------------- */

static void do_attach(size_t n, const char *out) {
  iopoly_array *a = open_matrix(n, IOPOLY_RDONLY);
  size_t per = iopoly_block_size() / 8; /* doubles per block */
  size_t *blk = malloc(n * sizeof(size_t));
  const double **ptr = malloc(n * sizeof(double *));
  for (size_t r = 0; r < n; ++r)
    ptr[r] = NULL;
  double *sums = malloc((2 * n - 1) * sizeof(double));
  for (size_t sum = 0, k = 0; sum < 2 * n - 1; ++sum, ++k) {
    size_t lo = sum < n ? 0 : sum - (n - 1), hi = sum < n ? sum : n - 1;
    double total = 0;
    for (size_t row = lo; row <= hi; ++row) {
      size_t pos = row * n + (sum - row), b = pos / per;
      if (!ptr[row] || blk[row] != b) {
        if (ptr[row] && iopoly_release(a, blk[row]) != 0)
          die_iopoly("iopoly_release");
        ptr[row] = iopoly_attach(a, b, IOPOLY_READ);
        if (!ptr[row])
          die_iopoly("iopoly_attach");
        blk[row] = b;
      }
      total += ptr[row][pos - b * per];
    }
    sums[k] = total;
    /* Row lo-1 left the wavefront for good: release its block. */
    if (lo > 0 && ptr[lo - 1]) {
      if (iopoly_release(a, blk[lo - 1]) != 0)
        die_iopoly("iopoly_release");
      ptr[lo - 1] = NULL;
    }
  }
  for (size_t r = 0; r < n; ++r)
    if (ptr[r] && iopoly_release(a, blk[r]) != 0)
      die_iopoly("iopoly_release");
  write_sums(out, sums, 2 * n - 1);
  if (iopoly_close(a) != 0)
    die_iopoly("iopoly_close");
  free(sums);
  free(ptr);
  free(blk);
}

/* ---- seeker/reaper ------------------------------------------------------- */

struct walk {
  size_t n, per;
};

/* Blocks touched by diagonal `step`: one per row it crosses. */
static size_t diagonal_blocks(void *ctx, size_t step, size_t *out, size_t max) {
  const struct walk *w = ctx;
  size_t n = w->n, lo = step < n ? 0 : step - (n - 1), hi = step < n ? step : n - 1, m = 0;
  for (size_t row = lo; row <= hi && m < max; ++row) {
    size_t b = (row * n + (step - row)) / w->per;
    if (m == 0 || out[m - 1] != b)
      out[m++] = b;
  }
  return m;
}

static void do_seeker(size_t n, const char *out, size_t lookahead) {
  iopoly_array *a = open_matrix(n, IOPOLY_RDONLY);
  struct walk w = {n, iopoly_block_size() / 8};
  iopoly_seeker *s = iopoly_seeker_open(a, 2 * n - 1, diagonal_blocks, &w, n, lookahead, IOPOLY_READ);
  if (!s)
    die_iopoly("iopoly_seeker_open");
  size_t *blk = malloc(n * sizeof(size_t));
  const double **ptr = malloc(n * sizeof(double *));
  for (size_t r = 0; r < n; ++r)
    ptr[r] = NULL;
  double *sums = malloc((2 * n - 1) * sizeof(double));
  long step;
  while ((step = iopoly_seeker_next(s)) >= 0) {
    size_t sum = (size_t)step, lo = sum < n ? 0 : sum - (n - 1), hi = sum < n ? sum : n - 1;
    double total = 0;
    for (size_t row = lo; row <= hi; ++row) {
      size_t pos = row * n + (sum - row), b = pos / w.per;
      /* The seeker holds the block; ask it only when the row's block changes. */
      if (!ptr[row] || blk[row] != b) {
        ptr[row] = iopoly_seeker_block(s, b);
        if (!ptr[row])
          die_iopoly("iopoly_seeker_block");
        blk[row] = b;
      }
      total += ptr[row][pos - b * w.per];
    }
    sums[sum] = total;
  }
  if (*iopoly_last_error())
    die_iopoly("iopoly_seeker_next");
  if (iopoly_seeker_close(s) != 0)
    die_iopoly("iopoly_seeker_close");
  write_sums(out, sums, 2 * n - 1);
  if (iopoly_close(a) != 0)
    die_iopoly("iopoly_close");
  free(sums);
  free(ptr);
  free(blk);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: wavefront init N RAW | mmap N RAW OUT [random] | attach N OUT | seeker N OUT [LOOKAHEAD]\n");
    return 2;
  }
  const char *mode = argv[1];
  char *end;
  size_t n = strtoull(argv[2], &end, 10);
  if (*end || n < 2) {
    fprintf(stderr, "wavefront: bad N '%s'\n", argv[2]);
    return 2;
  }
  double t0 = now();
  if (!strcmp(mode, "init"))
    do_init(n, argv[3]);
  else if (!strcmp(mode, "mmap") && argc >= 5)
    do_mmap(n, argv[3], argv[4], argc >= 6 && !strcmp(argv[5], "random"));
  else if (!strcmp(mode, "attach"))
    do_attach(n, argv[3]);
  else if (!strcmp(mode, "seeker"))
    do_seeker(n, argv[3], argc >= 5 ? strtoull(argv[4], NULL, 10) : 64);
  else {
    fprintf(stderr, "wavefront: unknown mode '%s'\n", mode);
    return 2;
  }
  printf("wall %.3f\n", now() - t0);
  report_usage();
  return 0;
}
