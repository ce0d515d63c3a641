/*===- knowac-gen.c - netCDF inputs for the pgea benchmark -----------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Writes one netCDF file shaped like GCRM output (paper 5, section VI.A):
 * dimensions time (unlimited), cells and layers; the coordinate variables
 * time(time) and area(cells); and --vars data variables over (time, cells,
 * layers) with deterministic pseudo-random values (a different --seed per
 * file). --type and --format make the "formats" of paper 5, Fig. 10.
 *
 *   knowac-gen -o FILE [--cells N] [--layers N] [--steps N] [--vars N]
 *              [--type double|float] [--format cdf2|cdf5] [--seed S]
 *
 * Runs on any number of ranks (each writes its share of the cells).
 *===----------------------------------------------------------------------===*/
#include <mpi.h>
#include <pnetcdf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const Names[] = {"temperature", "pressure",  "humidity", "wind_u",
                                    "wind_v",      "salinity",  "density",  "vorticity",
                                    "divergence",  "geopotential", "ozone", "cloud_fraction"};
enum { MaxVars = sizeof Names / sizeof Names[0] };

static int rank, nprocs;

#define CHECK(e)                                                                                                     \
  do {                                                                                                               \
    int rc_ = (e);                                                                                                   \
    if (rc_ != NC_NOERR) {                                                                                           \
      fprintf(stderr, "knowac-gen: %s: %s\n", #e, ncmpi_strerror(rc_));                                               \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                                  \
    }                                                                                                                \
  } while (0)

static double value(unsigned seed, int var, long long i) {
  uint64_t x = ((uint64_t)seed << 40) ^ ((uint64_t)var << 32) ^ (uint64_t)i;
  x *= 0x9E3779B97F4A7C15ULL;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return 200.0 + (double)(x % 100000) / 1000.0; /* 200..300, like temperatures in K */
}

static long long arg(int argc, char **argv, const char *name, long long dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], name)) {
      char *end;
      long long v = strtoll(argv[i + 1], &end, 10);
      if (*end || v <= 0) {
        if (rank == 0)
          fprintf(stderr, "knowac-gen: %s needs a positive integer, not '%s'\n", name, argv[i + 1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      return v;
    }
  return dflt;
}

static const char *sarg(int argc, char **argv, const char *name, const char *dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], name))
      return argv[i + 1];
  return dflt;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const char *out = sarg(argc, argv, "-o", NULL);
  long long cells = arg(argc, argv, "--cells", 16384), layers = arg(argc, argv, "--layers", 16);
  long long steps = arg(argc, argv, "--steps", 4), nvars = arg(argc, argv, "--vars", 4);
  long long seed = arg(argc, argv, "--seed", 1);
  const char *type = sarg(argc, argv, "--type", "double"), *format = sarg(argc, argv, "--format", "cdf2");
  int isfloat = !strcmp(type, "float");
  if (!out || nvars > MaxVars || (!isfloat && strcmp(type, "double")) ||
      (strcmp(format, "cdf2") && strcmp(format, "cdf5"))) {
    if (rank == 0)
      fprintf(stderr, "usage: knowac-gen -o FILE [--cells N] [--layers N] [--steps N] [--vars N (<= %d)] "
                      "[--type double|float] [--format cdf2|cdf5] [--seed S]\n",
              (int)MaxVars);
    MPI_Finalize();
    return 2;
  }
  int nc, dim[3], tv, av, vars[MaxVars];
  int cmode = NC_CLOBBER | (!strcmp(format, "cdf5") ? NC_64BIT_DATA : NC_64BIT_OFFSET);
  CHECK(ncmpi_create(MPI_COMM_WORLD, out, cmode, MPI_INFO_NULL, &nc));
  CHECK(ncmpi_def_dim(nc, "time", NC_UNLIMITED, &dim[0]));
  CHECK(ncmpi_def_dim(nc, "cells", cells, &dim[1]));
  CHECK(ncmpi_def_dim(nc, "layers", layers, &dim[2]));
  CHECK(ncmpi_def_var(nc, "time", NC_DOUBLE, 1, &dim[0], &tv));
  CHECK(ncmpi_def_var(nc, "area", NC_DOUBLE, 1, &dim[1], &av));
  for (int v = 0; v < nvars; ++v)
    CHECK(ncmpi_def_var(nc, Names[v], isfloat ? NC_FLOAT : NC_DOUBLE, 3, dim, &vars[v]));
  CHECK(ncmpi_put_att_text(nc, NC_GLOBAL, "title", 24, "iopoly KNOWAC pgea input"));
  CHECK(ncmpi_enddef(nc));

  long long share = (cells + nprocs - 1) / nprocs, c0 = rank * share;
  if (c0 > cells)
    c0 = cells;
  if (c0 + share > cells)
    share = cells - c0;
  size_t n = (size_t)(share * layers);
  double *d = malloc(n * sizeof *d + 1);
  float *f = malloc(n * sizeof *f + 1);
  for (long long t = 0; t < steps; ++t) {
    MPI_Offset ts = t, tc = rank == 0 ? 1 : 0;
    double tval = 3.0 * (double)t;
    CHECK(ncmpi_put_vara_double_all(nc, tv, &ts, &tc, &tval));
    for (int v = 0; v < nvars; ++v) {
      for (size_t i = 0; i < n; ++i) {
        double x = value((unsigned)seed, v, (t * cells + c0) * layers + (long long)i);
        d[i] = x;
        f[i] = (float)x;
      }
      MPI_Offset st[3] = {t, c0, 0}, ct[3] = {1, share, layers};
      if (isfloat)
        CHECK(ncmpi_put_vara_float_all(nc, vars[v], st, ct, f));
      else
        CHECK(ncmpi_put_vara_double_all(nc, vars[v], st, ct, d));
    }
  }
  double *a = malloc((size_t)share * sizeof *a + 1);
  for (long long c = 0; c < share; ++c)
    a[c] = 1.0 + (double)((c0 + c) % 7) / 10.0;
  MPI_Offset as = c0, ac = share;
  CHECK(ncmpi_put_vara_double_all(nc, av, &as, &ac, a));
  CHECK(ncmpi_close(nc));
  free(d);
  free(f);
  free(a);
  MPI_Finalize();
  return 0;
}
