/*===- pgea.c - Grid-point averaging over netCDF files (Pagoda's pgea) -----===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The application of paper 5, section VI: every data variable over (time,
 * cells, layers) of the inputs is combined element by element, each file
 * with equal weight, and written to a new file; time and area are copied.
 * In each phase (one variable, one time step) it reads the slab from every
 * input, computes, and writes (Fig. 9). The cells are split among the
 * ranks; reads and writes are collective (--indep: independent).
 *
 *   pgea -o OUT [--op avg|sqavg|rms|max|min] [--work N] [--indep] IN...
 *
 * --work N adds N multiply-adds per output element (the result is folded
 * back in, so nothing is optimized away): pgea's own operations cost far
 * less than reading their data, and the benchmark sets the compute/I/O
 * ratio of the paper's runs with it. Prints one JSON line (rank 0): total,
 * read, compute (wall and CPU) and write seconds (the slowest rank's) and
 * bytes read.
 *===----------------------------------------------------------------------===*/
#include <mpi.h>
#include <pnetcdf.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, nprocs;

/* CPU time of this thread: compute wall time shows how much the CPUs are
 * shared; this shows the work itself. */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHECK(e)                                                                                                     \
  do {                                                                                                               \
    int rc_ = (e);                                                                                                   \
    if (rc_ != NC_NOERR) {                                                                                           \
      fprintf(stderr, "pgea [rank %d]: %s: %s\n", rank, #e, ncmpi_strerror(rc_));                                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                                  \
    }                                                                                                                \
  } while (0)

enum Op { Avg, SqAvg, Rms, Max, Min };

static void usage(void) {
  if (rank == 0)
    fprintf(stderr, "usage: pgea -o OUT [--op avg|sqavg|rms|max|min] [--work N] [--indep] IN...\n");
  MPI_Finalize();
  exit(2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const char *out = NULL;
  enum Op op = Avg;
  long work = 0;
  int indep = 0, nin = 0;
  const char **in = calloc((size_t)argc, sizeof *in);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(argv[i], "--op") && i + 1 < argc) {
      const char *o = argv[++i];
      op = !strcmp(o, "avg") ? Avg : !strcmp(o, "sqavg") ? SqAvg : !strcmp(o, "rms") ? Rms
         : !strcmp(o, "max") ? Max : !strcmp(o, "min") ? Min : (usage(), Avg);
    } else if (!strcmp(argv[i], "--work") && i + 1 < argc) {
      work = atol(argv[++i]);
    } else if (!strcmp(argv[i], "--indep")) {
      indep = 1;
    } else if (argv[i][0] == '-') {
      usage();
    } else {
      in[nin++] = argv[i];
    }
  }
  if (!out || nin < 1 || work < 0)
    usage();

  double t0 = MPI_Wtime(), tread = 0, tcomp = 0, tcpu = 0, twrite = 0, bytes = 0;
  int *nc = malloc((size_t)nin * sizeof *nc);
  for (int f = 0; f < nin; ++f)
    CHECK(ncmpi_open(MPI_COMM_WORLD, in[f], NC_NOWRITE, MPI_INFO_NULL, &nc[f]));
  int dt, dc, dl, fmt;
  MPI_Offset steps, cells, layers;
  CHECK(ncmpi_inq_dimid(nc[0], "time", &dt));
  CHECK(ncmpi_inq_dimid(nc[0], "cells", &dc));
  CHECK(ncmpi_inq_dimid(nc[0], "layers", &dl));
  CHECK(ncmpi_inq_dimlen(nc[0], dt, &steps));
  CHECK(ncmpi_inq_dimlen(nc[0], dc, &cells));
  CHECK(ncmpi_inq_dimlen(nc[0], dl, &layers));
  CHECK(ncmpi_inq_format(nc[0], &fmt));

  /* The output: the same dimensions, time and area, every data variable. */
  int o, od[3], otv, oav, nvars;
  CHECK(ncmpi_create(MPI_COMM_WORLD, out, NC_CLOBBER | (fmt == NC_FORMAT_CDF5 ? NC_64BIT_DATA : NC_64BIT_OFFSET),
                     MPI_INFO_NULL, &o));
  CHECK(ncmpi_def_dim(o, "time", NC_UNLIMITED, &od[0]));
  CHECK(ncmpi_def_dim(o, "cells", cells, &od[1]));
  CHECK(ncmpi_def_dim(o, "layers", layers, &od[2]));
  CHECK(ncmpi_def_var(o, "time", NC_DOUBLE, 1, &od[0], &otv));
  CHECK(ncmpi_def_var(o, "area", NC_DOUBLE, 1, &od[1], &oav));
  CHECK(ncmpi_inq_nvars(nc[0], &nvars));
  int *data = malloc((size_t)nvars * sizeof *data), *odata = malloc((size_t)nvars * sizeof *odata), ndata = 0;
  for (int v = 0; v < nvars; ++v) {
    int nd, dims[3];
    char name[NC_MAX_NAME + 1];
    CHECK(ncmpi_inq_varndims(nc[0], v, &nd));
    if (nd != 3)
      continue;
    CHECK(ncmpi_inq_vardimid(nc[0], v, dims));
    CHECK(ncmpi_inq_varname(nc[0], v, name));
    if (nd == 3 && dims[0] == dt && dims[1] == dc && dims[2] == dl) {
      data[ndata] = v;
      CHECK(ncmpi_def_var(o, name, NC_DOUBLE, 3, od, &odata[ndata]));
      ++ndata;
    }
  }
  char title[64];
  snprintf(title, sizeof title, "pgea of %d files", nin);
  CHECK(ncmpi_put_att_text(o, NC_GLOBAL, "history", (MPI_Offset)strlen(title), title));
  CHECK(ncmpi_enddef(o));
  if (indep) {
    for (int f = 0; f < nin; ++f)
      CHECK(ncmpi_begin_indep_data(nc[f]));
    CHECK(ncmpi_begin_indep_data(o));
  }

  MPI_Offset share = (cells + nprocs - 1) / nprocs, c0 = rank * share;
  if (c0 > cells)
    c0 = cells;
  if (c0 + share > cells)
    share = cells - c0;
  size_t n = (size_t)(share * layers);
  double **buf = malloc((size_t)nin * sizeof *buf), *res = malloc(n * sizeof *res + 8);
  for (int f = 0; f < nin; ++f)
    buf[f] = malloc(n * sizeof **buf + 8);

  /* Coordinates: copied from the first input. */
  {
    int iv;
    double *a = malloc((size_t)share * sizeof *a + 8), *tm = malloc((size_t)steps * sizeof *tm + 8);
    MPI_Offset s = c0, c = share, ts = 0, tc = rank == 0 ? steps : 0;
    CHECK(ncmpi_inq_varid(nc[0], "area", &iv));
    double r0 = MPI_Wtime();
    CHECK(indep ? ncmpi_get_vara_double(nc[0], iv, &s, &c, a) : ncmpi_get_vara_double_all(nc[0], iv, &s, &c, a));
    CHECK(ncmpi_inq_varid(nc[0], "time", &iv));
    CHECK(indep ? ncmpi_get_vara_double(nc[0], iv, &ts, &tc, tm) : ncmpi_get_vara_double_all(nc[0], iv, &ts, &tc, tm));
    double w0 = MPI_Wtime();
    tread += w0 - r0;
    CHECK(indep ? ncmpi_put_vara_double(o, oav, &s, &c, a) : ncmpi_put_vara_double_all(o, oav, &s, &c, a));
    CHECK(indep ? ncmpi_put_vara_double(o, otv, &ts, &tc, tm) : ncmpi_put_vara_double_all(o, otv, &ts, &tc, tm));
    twrite += MPI_Wtime() - w0;
    free(a);
    free(tm);
  }

  for (int v = 0; v < ndata; ++v)
    for (MPI_Offset t = 0; t < steps; ++t) {
      MPI_Offset st[3] = {t, c0, 0}, ct[3] = {1, share, layers};
      double r0 = MPI_Wtime();
      for (int f = 0; f < nin; ++f) {
        CHECK(indep ? ncmpi_get_vara_double(nc[f], data[v], st, ct, buf[f])
                    : ncmpi_get_vara_double_all(nc[f], data[v], st, ct, buf[f]));
        bytes += (double)n * sizeof(double);
      }
      double c1 = MPI_Wtime(), u1 = cpu_now();
      tread += c1 - r0;
      const double w = 1.0 / nin;
      for (size_t i = 0; i < n; ++i) {
        double acc = op == Max ? -HUGE_VAL : op == Min ? HUGE_VAL : 0;
        for (int f = 0; f < nin; ++f) {
          double x = buf[f][i];
          switch (op) {
          case Avg: acc += x; break;
          case SqAvg:
          case Rms: acc += x * x; break;
          case Max: acc = x > acc ? x : acc; break;
          case Min: acc = x < acc ? x : acc; break;
          }
        }
        double r = op == Avg || op == SqAvg ? acc * w : op == Rms ? sqrt(acc * w) : acc;
        double y = r;
        for (long k = 0; k < work; ++k)
          y = y * 0.9999999 + r * 1e-7;
        res[i] = y;
      }
      double w1 = MPI_Wtime();
      tcomp += w1 - c1;
      tcpu += cpu_now() - u1;
      CHECK(indep ? ncmpi_put_vara_double(o, odata[v], st, ct, res)
                  : ncmpi_put_vara_double_all(o, odata[v], st, ct, res));
      twrite += MPI_Wtime() - w1;
    }
  for (int f = 0; f < nin; ++f)
    CHECK(ncmpi_close(nc[f]));
  CHECK(ncmpi_close(o));
  double mine[6] = {MPI_Wtime() - t0, tread, tcomp, twrite, bytes, tcpu}, worst[6], total[6];
  MPI_Reduce(mine, worst, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, total, 6, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("{\"seconds\": %.6f, \"read_seconds\": %.6f, \"compute_seconds\": %.6f, \"compute_cpu_seconds\": %.6f, "
           "\"write_seconds\": %.6f, \"bytes_read\": %.0f, \"ranks\": %d, \"files\": %d, \"variables\": %d, "
           "\"steps\": %lld}\n",
           worst[0], worst[1], worst[2], worst[5], worst[3], total[4], nprocs, nin, ndata, (long long)steps);
  for (int f = 0; f < nin; ++f)
    free(buf[f]);
  free(buf);
  free(res);
  free(nc);
  free(data);
  free(odata);
  free(in);
  MPI_Finalize();
  return 0;
}
