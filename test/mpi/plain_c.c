/*===- plain_c.c - A program without MPI using the mpiio backend ----------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Plain C linked only with libiopoly (no MPI headers or libraries), run
 * with IOPOLY_BACKEND=mpiio, alone or under mpirun: the backend module
 * initializes MPI itself (MPI_THREAD_MULTIPLE) and finalizes it at exit.
 * The array name carries the rank from the launcher's environment.
 *   full     create, write past the buffer, prefetch and verify, close,
 *            reopen and verify; check the statistics (mpiio, MPI started
 *            by iopoly, background I/O on with MPI_THREAD_MULTIPLE)
 *   noclose  create and write, then exit without closing: the exit handler
 *            must write everything back before the module finalizes MPI
 *   verify   check every byte written by noclose
 *===----------------------------------------------------------------------===*/
#include "mpitest.h"

static unsigned seed_of(int rank) { return 500u + (unsigned)rank; }

int main(int argc, char **argv) {
  mt_rank = mt_env_rank();
  const char *mode = argc > 1 ? argv[1] : "full";
  char name[64];
  snprintf(name, sizeof name, "plain_%s%d", strcmp(mode, "full") == 0 ? "full" : "noclose", mt_rank);
  size_t dims[1] = {(size_t)(90 + 3 * mt_rank) * 4096 + 1};

  if (strcmp(mode, "verify") == 0) {
    iopoly_array *a = iopoly_open(name, 1, 1, dims, IOPOLY_RDONLY);
    MT_CHECKF(a != NULL, "open %s", name);
    mt_verify_all(a, seed_of(mt_rank), 7);
    MT_CHECK(iopoly_close(a) == 0);
    return 0;
  }

  iopoly_array *a = iopoly_open(name, 1, 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  MT_CHECKF(a != NULL, "create %s", name);
  MT_CHECKF(iopoly_num_blocks(a) > 2 * iopoly_buffer_blocks(), "array does not exceed the buffer");
  mt_write_all(a, seed_of(mt_rank));
  if (strcmp(mode, "noclose") == 0)
    return 0; /* no iopoly_close, no flush */
  MT_CHECKF(strcmp(mode, "full") == 0, "unknown mode '%s'", mode);

  /* With prefetch hints (served by background threads). */
  size_t n = iopoly_num_blocks(a);
  for (size_t b = 0; b < n; ++b) {
    for (size_t k = 1; k <= 4 && b + k < n; ++k)
      MT_CHECK(iopoly_prefetch(a, b + k) >= 0);
    const unsigned char *p = (const unsigned char *)iopoly_attach(a, b, IOPOLY_READ);
    MT_CHECKF(p != NULL, "attach block %zu", b);
    mt_verify_block(a, b, p, seed_of(mt_rank));
    MT_CHECK(iopoly_release(a, b) == 0);
  }
  MT_CHECK(iopoly_close(a) == 0);
  a = iopoly_open(name, 1, 1, dims, IOPOLY_RDONLY);
  MT_CHECK(a != NULL);
  mt_verify_all(a, seed_of(mt_rank), n / 2);
  MT_CHECK(iopoly_close(a) == 0);

  const char *dir = getenv("IOPOLY_DIR");
  MT_CHECK(dir != NULL);
  char path[4096];
  snprintf(path, sizeof path, "%s/stats.plain%d.json", dir, mt_rank);
  char *json = mt_stats_json(path);
  MT_EXPECT_JSON(json, "\"backend\":\"mpiio\"");
  MT_EXPECT_JSON(json, "\"mpi_initialized_by_iopoly\":true");
  /* The module asks for MPI_THREAD_MULTIPLE; background I/O follows the
   * level MPI grants. */
  if (strstr(json, "\"mpi_thread_level\":\"multiple\""))
    MT_EXPECT_JSON(json, "\"background_io\":true");
  else
    MT_EXPECT_JSON(json, "\"background_io\":false");
  MT_EXPECT_JSON(json, "\"issued\":");
  MT_CHECKF(strstr(json, "\"issued\":0,") == NULL, "no prefetch was issued:\n%s", json);
  free(json);
  if (mt_rank == 0)
    printf("plain_c: wrote and verified %zu blocks through MPI-IO started by iopoly\n", n);
  return 0;
}
