/*===- knowac_probe.c - A PnetCDF program for the KNOWAC scenarios ---------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Knows nothing of KNOWAC: it is run plain, under LD_PRELOAD and linked
 * with libiopoly_knowac.so, on 1 and 4 ranks, and what it reads and writes
 * must be the same every time (run-knowac-test.sh compares).
 *
 *   knowac_probe gen FILE SEED        input: t(time,cells,layers) double,
 *                                     q(...) float, grid(cells) int,
 *                                     s(layers) short, time(time) double;
 *                                     3 records
 *   knowac_probe run IN OUT [MS]      read IN through every kind of get,
 *                                     MS ms of "compute" between phases,
 *                                     write OUT; print a checksum of all
 *                                     bytes read (rank 0: all ranks')
 *   knowac_probe rw FILE              read, overwrite and read again one
 *                                     region: the second read must see the
 *                                     write (prefetched or not)
 *   knowac_probe pause FILE DIR       read t[0], create DIR/ready, wait for
 *                                     DIR/go, read t[1]; print the checksum
 *   knowac_probe modify FILE VALUE    set t[1] to VALUE everywhere
 *   knowac_probe runtime NAME         also open an iopoly array (the
 *                                     runtime's statistics share IOPOLY_STATS)
 *===----------------------------------------------------------------------===*/
#include <mpi.h>
#include <pnetcdf.h>

#include "iopoly.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { Recs = 3, Cells = 64, Layers = 4 };

static int rank, nprocs;

#define CHECK(e)                                                                                                     \
  do {                                                                                                               \
    int rc_ = (e);                                                                                                   \
    if (rc_ != NC_NOERR) {                                                                                           \
      fprintf(stderr, "FAIL [rank %d] %s:%d: %s: %s\n", rank, __FILE__, __LINE__, #e, ncmpi_strerror(rc_));          \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                                  \
    }                                                                                                                \
  } while (0)

#define EXPECT(c)                                                                                                    \
  do {                                                                                                               \
    if (!(c)) {                                                                                                      \
      fprintf(stderr, "FAIL [rank %d] %s:%d: %s\n", rank, __FILE__, __LINE__, #c);                                   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                                  \
    }                                                                                                                \
  } while (0)

static uint64_t sum = 1469598103934665603ULL; /* FNV-1a over every byte read */
static void mix(const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; ++i) {
    sum ^= b[i];
    sum *= 1099511628211ULL;
  }
}

static void compute(int ms) {
  if (ms <= 0)
    return;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  volatile double x = 1;
  do { /* busy, like real compute: the helper thread runs on the other core */
    for (int i = 0; i < 10000; ++i)
      x = x * 1.0000001 + 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000.0 + (t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
}

static double value(unsigned seed, int r, int c, int l) {
  uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + (uint64_t)(r * Cells * Layers + c * Layers + l) * 31;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 32;
  return (double)(x % 2000003) / 1000.0 - 1000.0;
}

static int gen(const char *path, unsigned seed) {
  int nc, d[3], t, q, g, s, tv;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc));
  CHECK(ncmpi_def_dim(nc, "time", NC_UNLIMITED, &d[0]));
  CHECK(ncmpi_def_dim(nc, "cells", Cells, &d[1]));
  CHECK(ncmpi_def_dim(nc, "layers", Layers, &d[2]));
  CHECK(ncmpi_def_var(nc, "t", NC_DOUBLE, 3, d, &t));
  CHECK(ncmpi_def_var(nc, "q", NC_FLOAT, 3, d, &q));
  CHECK(ncmpi_def_var(nc, "grid", NC_INT, 1, &d[1], &g));
  CHECK(ncmpi_def_var(nc, "s", NC_SHORT, 1, &d[2], &s));
  CHECK(ncmpi_def_var(nc, "time", NC_DOUBLE, 1, &d[0], &tv)); /* one element per record */
  CHECK(ncmpi_enddef(nc));
  static double tb[Cells * Layers];
  static float qb[Cells * Layers];
  for (int r = 0; r < Recs; ++r) {
    for (int c = 0; c < Cells; ++c)
      for (int l = 0; l < Layers; ++l) {
        tb[c * Layers + l] = value(seed, r, c, l);
        qb[c * Layers + l] = (float)value(seed + 1, r, c, l);
      }
    MPI_Offset st[3] = {r, 0, 0}, ct[3] = {rank == 0 ? 1 : 0, Cells, Layers};
    CHECK(ncmpi_put_vara_double_all(nc, t, st, ct, tb));
    CHECK(ncmpi_put_vara_float_all(nc, q, st, ct, qb));
    MPI_Offset ts = r, tc = rank == 0 ? 1 : 0;
    double tval = 0.25 * r + seed;
    CHECK(ncmpi_put_vara_double_all(nc, tv, &ts, &tc, &tval));
  }
  int gb[Cells];
  short sb[Layers];
  for (int c = 0; c < Cells; ++c)
    gb[c] = c * 7 + (int)seed;
  for (int l = 0; l < Layers; ++l)
    sb[l] = (short)(l - 2);
  MPI_Offset gs = 0, gc = rank == 0 ? Cells : 0, ss = 0, sc = rank == 0 ? Layers : 0;
  CHECK(ncmpi_put_vara_int_all(nc, g, &gs, &gc, gb));
  CHECK(ncmpi_put_vara_short_all(nc, s, &ss, &sc, sb));
  CHECK(ncmpi_close(nc));
  return 0;
}

static int run(const char *in, const char *out, int ms) {
  int nc, t, q, g, s, tv;
  CHECK(ncmpi_open(MPI_COMM_WORLD, in, NC_NOWRITE, MPI_INFO_NULL, &nc));
  CHECK(ncmpi_inq_varid(nc, "t", &t));
  CHECK(ncmpi_inq_varid(nc, "q", &q));
  CHECK(ncmpi_inq_varid(nc, "grid", &g));
  CHECK(ncmpi_inq_varid(nc, "s", &s));
  CHECK(ncmpi_inq_varid(nc, "time", &tv));
  int on, ot, od[3];
  CHECK(ncmpi_create(MPI_COMM_WORLD, out, NC_CLOBBER, MPI_INFO_NULL, &on));
  CHECK(ncmpi_def_dim(on, "time", NC_UNLIMITED, &od[0]));
  CHECK(ncmpi_def_dim(on, "cells", Cells, &od[1]));
  CHECK(ncmpi_def_dim(on, "layers", Layers, &od[2]));
  CHECK(ncmpi_def_var(on, "mean", NC_DOUBLE, 3, od, &ot));
  CHECK(ncmpi_enddef(on));

  const int share = Cells / nprocs, c0 = rank * share;
  static double a[Cells * Layers], b[Cells * Layers], m[Cells * Layers];
  static float f[Cells * Layers];
  int grid[Cells];
  short sv[Layers];
  /* Whole small variables, every rank. */
  CHECK(ncmpi_get_var_int_all(nc, g, grid));
  mix(grid, sizeof grid);
  CHECK(ncmpi_get_var_short_all(nc, s, sv));
  mix(sv, sizeof sv);
  for (int r = 0; r < Recs; ++r) {
    compute(ms);
    /* a one-dimensional record variable: its elements are a record apart */
    double times[Recs];
    CHECK(ncmpi_get_var_double_all(nc, tv, times));
    mix(times, sizeof times);
    MPI_Offset st[3] = {r, c0, 0}, ct[3] = {1, share, Layers};
    size_t n = (size_t)share * Layers;
    /* typed, collective */
    CHECK(ncmpi_get_vara_double_all(nc, t, st, ct, a));
    mix(a, n * sizeof(double));
    /* float variable read as double (converted) */
    CHECK(ncmpi_get_vara_double_all(nc, q, st, ct, b));
    mix(b, n * sizeof(double));
    compute(ms);
    /* flexible, collective; then strided and mapped (transposed) */
    CHECK(ncmpi_get_vara_all(nc, q, st, ct, f, (MPI_Offset)n, MPI_FLOAT));
    mix(f, n * sizeof(float));
    MPI_Offset sst[3] = {r, c0, 0}, sct[3] = {1, share / 2, Layers}, str[3] = {1, 2, 1};
    CHECK(ncmpi_get_vars_double_all(nc, t, sst, sct, str, m));
    mix(m, (size_t)(share / 2) * Layers * sizeof(double));
    MPI_Offset imap[3] = {0, 1, share};
    CHECK(ncmpi_get_varm_double_all(nc, t, st, ct, NULL, imap, m));
    mix(m, n * sizeof(double));
    compute(ms);
    /* independent mode: typed, var1, and nonblocking gets waited on */
    CHECK(ncmpi_begin_indep_data(nc));
    CHECK(ncmpi_get_vara_double(nc, t, st, ct, a));
    mix(a, n * sizeof(double));
    MPI_Offset one[3] = {r, c0 + 1, 2};
    double x;
    CHECK(ncmpi_get_var1_double(nc, t, one, &x));
    mix(&x, sizeof x);
    CHECK(ncmpi_end_indep_data(nc));
    int req[2];
    CHECK(ncmpi_iget_vara_double(nc, t, st, ct, a, &req[0]));
    CHECK(ncmpi_iget_vara_float(nc, q, st, ct, f, &req[1]));
    int stat[2];
    CHECK(ncmpi_wait_all(nc, 2, req, stat));
    EXPECT(stat[0] == NC_NOERR && stat[1] == NC_NOERR);
    mix(a, n * sizeof(double));
    mix(f, n * sizeof(float));
    for (size_t i = 0; i < n; ++i)
      m[i] = (a[i] + b[i]) / 2;
    CHECK(ncmpi_put_vara_double_all(on, ot, st, ct, m));
  }
  CHECK(ncmpi_close(on));
  CHECK(ncmpi_close(nc));
  uint64_t all[64] = {0};
  MPI_Gather(&sum, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("checksum");
    for (int i = 0; i < nprocs; ++i)
      printf(" %016llx", (unsigned long long)all[i]);
    printf("\n");
  }
  return 0;
}

/* Read t[0]; write t[1] for our cells; read t[1] back: it must be what was
 * written, whatever was read ahead before the write. */
static int rw(const char *path) {
  int nc, t;
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &nc));
  CHECK(ncmpi_inq_varid(nc, "t", &t));
  const int share = Cells / nprocs, c0 = rank * share;
  size_t n = (size_t)share * Layers;
  static double a[Cells * Layers], w[Cells * Layers];
  MPI_Offset st[3] = {0, c0, 0}, ct[3] = {1, share, Layers};
  CHECK(ncmpi_get_vara_double_all(nc, t, st, ct, a));
  mix(a, n * sizeof(double));
  compute(30); /* the helper reads t[1] ahead meanwhile (it did last time) */
  st[0] = 1;
  unsigned seed = (unsigned)time(NULL);
  for (size_t i = 0; i < n; ++i)
    w[i] = seed + (double)i / 8;
  CHECK(ncmpi_put_vara_double_all(nc, t, st, ct, w));
  compute(30);
  CHECK(ncmpi_get_vara_double_all(nc, t, st, ct, a));
  EXPECT(memcmp(a, w, n * sizeof(double)) == 0);
  CHECK(ncmpi_close(nc));
  if (rank == 0)
    printf("rw ok\n");
  return 0;
}

static int exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

static int pause_run(const char *path, const char *dir) {
  int nc, t;
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &nc));
  CHECK(ncmpi_inq_varid(nc, "t", &t));
  static double a[Cells * Layers];
  MPI_Offset st[3] = {0, 0, 0}, ct[3] = {1, Cells, Layers};
  CHECK(ncmpi_get_vara_double_all(nc, t, st, ct, a));
  mix(a, sizeof a);
  char ready[4096], go[4096];
  snprintf(ready, sizeof ready, "%s/ready", dir);
  snprintf(go, sizeof go, "%s/go", dir);
  compute(200); /* idle: the helper reads t[1] ahead */
  FILE *fr = fopen(ready, "w");
  if (fr)
    fclose(fr);
  for (int i = 0; i < 6000 && !exists(go); ++i)
    usleep(5000);
  EXPECT(exists(go));
  st[0] = 1;
  CHECK(ncmpi_get_vara_double_all(nc, t, st, ct, a));
  mix(a, sizeof a);
  CHECK(ncmpi_close(nc));
  printf("checksum %016llx\n", (unsigned long long)sum);
  return 0;
}

static int modify(const char *path, double v) {
  int nc, t;
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &nc));
  CHECK(ncmpi_inq_varid(nc, "t", &t));
  static double a[Cells * Layers];
  for (int i = 0; i < Cells * Layers; ++i)
    a[i] = v;
  MPI_Offset st[3] = {1, 0, 0}, ct[3] = {1, Cells, Layers};
  CHECK(ncmpi_put_vara_double_all(nc, t, st, ct, a));
  CHECK(ncmpi_close(nc));
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int rc = 2;
  if (argc >= 4 && !strcmp(argv[1], "gen"))
    rc = gen(argv[2], (unsigned)atoi(argv[3]));
  else if (argc >= 4 && !strcmp(argv[1], "run"))
    rc = run(argv[2], argv[3], argc >= 5 ? atoi(argv[4]) : 20);
  else if (argc >= 3 && !strcmp(argv[1], "rw"))
    rc = rw(argv[2]);
  else if (argc >= 4 && !strcmp(argv[1], "pause"))
    rc = pause_run(argv[2], argv[3]);
  else if (argc >= 4 && !strcmp(argv[1], "modify"))
    rc = modify(argv[2], atof(argv[3]));
  else if (argc >= 3 && !strcmp(argv[1], "runtime")) {
    size_t dims[1] = {1024};
    iopoly_array *arr = iopoly_open(argv[2], 8, 1, dims, IOPOLY_CREATE);
    EXPECT(arr != NULL);
    EXPECT(iopoly_close(arr) == 0);
    rc = argc >= 5 ? run(argv[3], argv[4], 5) : 0;
  } else
    fprintf(stderr, "usage: knowac_probe gen|run|rw|pause|modify|runtime ... (see the source)\n");
  MPI_Finalize();
  return rc;
}
