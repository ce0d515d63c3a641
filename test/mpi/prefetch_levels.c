/*===- prefetch_levels.c - Prefetch through mpiio at each thread level ----===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Usage: prefetch_levels multiple|serialized|funneled|single (under mpirun).
 * The program initializes MPI with that thread level, writes an array larger
 * than the buffer, then reads it back with prefetch hints and with a
 * seeker/reaper, checking every byte. The MPI-IO calls on files are
 * intercepted here (the executable exports MPI_File_*, which the backend
 * module binds to; they forward to PMPI_File_*) to record which thread makes
 * them:
 *   multiple            prefetches run on background I/O threads: some MPI
 *                       calls come from other threads than main
 *   serialized and below  every MPI call comes from the main thread (the
 *                       prefetches ran inline), and nothing crashes
 * The statistics must report the level and whether background I/O is on.
 *===----------------------------------------------------------------------===*/
#include "mpitest.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_t main_thread;
static atomic_ulong calls_main, calls_other;

static void note_call(void) {
  if (pthread_equal(pthread_self(), main_thread))
    atomic_fetch_add(&calls_main, 1);
  else
    atomic_fetch_add(&calls_other, 1);
}

/* Interposers (found by the backend module before libmpi's definitions). */
int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t, MPI_Status *st) {
  note_call();
  return PMPI_File_read_at(fh, off, buf, count, t, st);
}
int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype t,
                      MPI_Status *st) {
  note_call();
  return PMPI_File_write_at(fh, off, buf, count, t, st);
}
int MPI_File_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File *fh) {
  note_call();
  return PMPI_File_open(comm, path, amode, info, fh);
}
int MPI_File_close(MPI_File *fh) {
  note_call();
  return PMPI_File_close(fh);
}
int MPI_File_sync(MPI_File fh) {
  note_call();
  return PMPI_File_sync(fh);
}
int MPI_File_get_size(MPI_File fh, MPI_Offset *size) {
  note_call();
  return PMPI_File_get_size(fh, size);
}
int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  note_call();
  return PMPI_File_set_size(fh, size);
}


static size_t one_block_per_step(void *ctx, size_t step, size_t *out, size_t max) {
  (void)ctx;
  (void)max;
  out[0] = step;
  return 1;
}

static unsigned long long json_number(const char *json, const char *key) {
  const char *p = strstr(json, key);
  MT_CHECKF(p != NULL, "statistics lack %s", key);
  return strtoull(p + strlen(key), NULL, 10);
}

int main(int argc, char **argv) {
  main_thread = pthread_self();
  const char *level_name = argc > 1 ? argv[1] : "multiple";
  int required = strcmp(level_name, "single") == 0       ? MPI_THREAD_SINGLE
                 : strcmp(level_name, "funneled") == 0   ? MPI_THREAD_FUNNELED
                 : strcmp(level_name, "serialized") == 0 ? MPI_THREAD_SERIALIZED
                                                         : MPI_THREAD_MULTIPLE;
  MT_CHECKF(required != MPI_THREAD_MULTIPLE || strcmp(level_name, "multiple") == 0, "unknown level '%s'",
            level_name);
  int provided = -1;
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  /* Open MPI may grant more than asked; the backend must follow what MPI
   * reports, so the expectations do too. */
  const int bg = provided == MPI_THREAD_MULTIPLE;
  if (provided != required && mt_rank == 0)
    printf("prefetch_levels: asked for %s, MPI granted level %d\n", level_name, provided);
  MT_CHECKF(provided >= required, "MPI granted thread level %d below the %s asked for", provided, level_name);

  const unsigned seed = 900u + (unsigned)mt_rank;
  char name[32];
  snprintf(name, sizeof name, "pf%d", mt_rank);
  size_t dims[1] = {(size_t)120 * iopoly_block_size()};
  iopoly_array *a = iopoly_open(name, 1, 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  MT_CHECKF(a != NULL, "create %s", name);
  const size_t n = iopoly_num_blocks(a);
  MT_CHECKF(n > 4 * iopoly_buffer_blocks(), "array does not exceed the buffer");
  mt_write_all(a, seed);
  MT_CHECK(iopoly_close(a) == 0);

  a = iopoly_open(name, 1, 1, dims, IOPOLY_RDONLY);
  MT_CHECK(a != NULL);
  /* Hand-written prefetch window of 6 blocks. */
  for (size_t b = 0; b < n; ++b) {
    for (size_t k = 1; k <= 6 && b + k < n; ++k)
      MT_CHECK(iopoly_prefetch(a, b + k) >= 0);
    const unsigned char *p = (const unsigned char *)iopoly_attach(a, b, IOPOLY_READ);
    MT_CHECKF(p != NULL, "attach block %zu", b);
    mt_verify_block(a, b, p, seed);
    MT_CHECK(iopoly_release(a, b) == 0);
  }
  /* Seeker/reaper: attach ahead 5 steps, fetched in the background. */
  iopoly_seeker *s = iopoly_seeker_open(a, n, one_block_per_step, NULL, 1, 5, IOPOLY_READ);
  MT_CHECK(s != NULL);
  long step;
  size_t steps = 0;
  while ((step = iopoly_seeker_next(s)) >= 0) {
    const unsigned char *p = (const unsigned char *)iopoly_seeker_block(s, (size_t)step);
    MT_CHECKF(p != NULL, "seeker block %ld", step);
    mt_verify_block(a, (size_t)step, p, seed);
    ++steps;
  }
  MT_CHECKF(steps == n, "the seeker walked %zu of %zu steps", steps, n);
  MT_CHECK(iopoly_seeker_close(s) == 0);
  MT_CHECK(iopoly_close(a) == 0);

  const char *dir = getenv("IOPOLY_DIR");
  MT_CHECK(dir != NULL);
  char path[4096];
  snprintf(path, sizeof path, "%s/stats.pf%d.json", dir, mt_rank);
  char *json = mt_stats_json(path);
  const char *granted = provided == MPI_THREAD_SINGLE       ? "single"
                        : provided == MPI_THREAD_FUNNELED   ? "funneled"
                        : provided == MPI_THREAD_SERIALIZED ? "serialized"
                                                            : "multiple";
  char want[128];
  snprintf(want, sizeof want, "\"mpi_thread_level\":\"%s\"", granted);
  MT_EXPECT_JSON(json, want);
  MT_EXPECT_JSON(json, bg ? "\"background_io\":true" : "\"background_io\":false");
  MT_EXPECT_JSON(json, "\"mpi_initialized_by_iopoly\":false");
  unsigned long long issued = json_number(json, "\"issued\":");
  MT_CHECKF(issued >= n / 2, "only %llu prefetches issued for %zu blocks", issued, n);
  free(json);

  unsigned long long on_main = atomic_load(&calls_main), off_main = atomic_load(&calls_other);
  MT_CHECKF(on_main + off_main > 0, "the MPI_File_* interposers saw no call: the test cannot observe threads");
  if (bg)
    MT_CHECKF(off_main > 0, "MPI_THREAD_MULTIPLE, but no MPI-IO call ran on a background thread (%llu on main)",
              on_main);
  else
    MT_CHECKF(off_main == 0, "thread level %s: %llu MPI-IO calls ran off the main thread", granted, off_main);

  MPI_Finalize();
  if (mt_rank == 0)
    printf("prefetch_levels %s: %llu MPI-IO calls on the main thread, %llu on I/O threads (rank 0)\n",
           level_name, on_main, off_main);
  return 0;
}
