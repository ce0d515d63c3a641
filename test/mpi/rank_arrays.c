/*===- rank_arrays.c - Each of 4 ranks writes and verifies its own array --===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Run under mpirun with IOPOLY_BACKEND=mpiio and a buffer far smaller than
 * an array. "rw": every rank creates the array rank<r> (its own size and
 * byte pattern), writes every block through attach/release, rewrites every
 * fifth block read-modify-write (attach WRITE fetches the old bytes, which
 * are checked), closes, reopens read-only and checks every byte; then checks
 * its neighbour's array, and the IOPOLY_STATS JSON (backend "mpiio", MPI
 * thread level, the striping hints and IOPOLY_MPIIO_HINTS, the hints MPI
 * reports back). "verify": a later run (with any backend) checks every byte
 * of its own array again.
 *===----------------------------------------------------------------------===*/
#include "mpitest.h"

#include <mpi.h>

static size_t array_bytes_of(int rank) {
  return (size_t)(150 + 7 * rank) * iopoly_block_size() + 123 + (size_t)rank;
}

static unsigned seed_of(int rank, size_t block) {
  return block % 5 == 0 ? 7000u + (unsigned)rank : 1000u + (unsigned)rank;
}

/* Checks every byte of rank `r`'s array, starting at block `first`. */
static void verify_rank_array(int r, size_t first) {
  char name[32];
  snprintf(name, sizeof name, "rank%d", r);
  size_t dims[1] = {array_bytes_of(r)};
  iopoly_array *a = iopoly_open(name, 1, 1, dims, IOPOLY_RDONLY);
  MT_CHECKF(a != NULL, "reopen %s read-only", name);
  size_t n = iopoly_num_blocks(a);
  for (size_t k = 0; k < n; ++k) {
    size_t b = (first + k) % n;
    const unsigned char *p = (const unsigned char *)iopoly_attach(a, b, IOPOLY_READ);
    MT_CHECKF(p != NULL, "attach %s block %zu", name, b);
    mt_verify_block(a, b, p, seed_of(r, b));
    MT_CHECK(iopoly_release(a, b) == 0);
  }
  MT_CHECKF(iopoly_attach(a, 0, IOPOLY_WRITE) == NULL, "a read-only array accepted an attach for writing");
  MT_CHECK(iopoly_close(a) == 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rank = mt_rank;
  const char *mode = argc > 1 ? argv[1] : "rw";

  if (strcmp(mode, "verify") == 0) {
    verify_rank_array(rank, 0);
    MPI_Finalize();
    return 0;
  }
  MT_CHECKF(strcmp(mode, "rw") == 0, "unknown mode '%s'", mode);
  MT_CHECKF(size == 4, "run with 4 ranks, not %d", size);

  const size_t S = iopoly_block_size();
  char name[32];
  snprintf(name, sizeof name, "rank%d", rank);
  size_t dims[1] = {array_bytes_of(rank)};
  iopoly_array *a = iopoly_open(name, 1, 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  MT_CHECKF(a != NULL, "create %s", name);
  const size_t n = iopoly_num_blocks(a);
  MT_CHECKF(n > 4 * iopoly_buffer_blocks(), "array of %zu blocks does not exceed the buffer of %zu", n,
            iopoly_buffer_blocks());

  /* Pass 1: every block gets the rank's base pattern. */
  mt_write_all(a, 1000u + (unsigned)rank);
  /* Pass 2: every fifth block is fetched back (it was evicted long ago),
   * checked, and rewritten with a second pattern. */
  for (size_t b = 0; b < n; b += 5) {
    unsigned char *p = (unsigned char *)iopoly_attach(a, b, IOPOLY_WRITE);
    MT_CHECKF(p != NULL, "attach block %zu for rewriting", b);
    mt_verify_block(a, b, p, 1000u + (unsigned)rank);
    size_t len = mt_block_bytes(a, b);
    for (size_t i = 0; i < len; ++i)
      p[i] = mt_byte(seed_of(rank, b), b * S + i);
    MT_CHECK(iopoly_release(a, b) == 0);
  }
  MT_CHECK(iopoly_close(a) == 0);

  iopoly_counters c;
  iopoly_get_counters(&c);
  size_t rewritten = (n + 4) / 5;
  MT_CHECKF(c.evictions > 0, "no evictions");
  MT_CHECKF(c.writebacks >= n + rewritten, "only %llu write-backs for %zu block writes", c.writebacks,
            n + rewritten);
  /* Pass 1 writes never-written stripes of a fresh array: zero-filled,
   * not fetched. Pass 2 fetches each rewritten block back from disk. */
  MT_CHECKF(c.stripe_fetches >= rewritten, "only %llu fetches", c.stripe_fetches);
  MT_CHECKF(c.bytes_written >= (n + rewritten) * S, "only %llu bytes written", c.bytes_written);

  /* Reopen and check every byte, then check the neighbour's array once
   * everybody has closed theirs. */
  verify_rank_array(rank, (size_t)rank * 13);
  MPI_Barrier(MPI_COMM_WORLD);
  verify_rank_array((rank + 1) % size, 0);

  /* Statistics: the backend, the thread level and the hints. */
  const char *dir = getenv("IOPOLY_DIR");
  MT_CHECK(dir != NULL);
  char path[4096];
  snprintf(path, sizeof path, "%s/stats.rank%d.json", dir, rank);
  char *json = mt_stats_json(path);
  int level;
  MPI_Query_thread(&level);
  const char *lname = level == MPI_THREAD_SINGLE       ? "single"
                      : level == MPI_THREAD_FUNNELED   ? "funneled"
                      : level == MPI_THREAD_SERIALIZED ? "serialized"
                                                       : "multiple";
  char want[256];
  MT_EXPECT_JSON(json, "\"backend\":\"mpiio\"");
  MT_EXPECT_JSON(json, "\"mpi_initialized_by_iopoly\":false");
  snprintf(want, sizeof want, "\"mpi_thread_level\":\"%s\"", lname);
  MT_EXPECT_JSON(json, want);
  MT_EXPECT_JSON(json, level == MPI_THREAD_MULTIPLE ? "\"background_io\":true" : "\"background_io\":false");
  snprintf(want, sizeof want, "\"hints\":{\"striping_unit\":\"%zu\",\"striping_factor\":\"1\","
                              "\"start_iodevice\":\"disk index\"",
           S);
  MT_EXPECT_JSON(json, want);
  /* IOPOLY_MPIIO_HINTS as the test driver sets it; MPI must echo it back. */
  MT_EXPECT_JSON(json, "\"cb_buffer_size\":\"1048576\",\"romio_no_indep_rw\":\"false\"}");
  MT_EXPECT_JSON(json, "\"hints_in_effect\":{");
  MT_CHECKF(strstr(strstr(json, "\"hints_in_effect\":{"), "\"cb_buffer_size\":\"1048576\"") != NULL,
            "MPI does not report the IOPOLY_MPIIO_HINTS hint back:\n%s", json);
  snprintf(want, sizeof want, "/disk0/rank%d.iop\"", rank);
  MT_EXPECT_JSON(json, want);
  MT_EXPECT_JSON(json, "\"mpi_library\":\"");
  free(json);

  MPI_Finalize();
  if (rank == 0)
    printf("rank_arrays: 4 ranks wrote and verified %zu+ blocks each through the mpiio backend\n", n);
  return 0;
}
