/*===- redundant.c - Every rank runs the same read-modify-write passes -----===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * What a loop that was not distributed does under MPI: every rank executes
 * it whole, reading and updating the same elements of a shared array with
 * the same values. Run under mpirun with a buffer much smaller than the
 * array, so that every pass evicts dirty stripes. The ranks run out of step
 * (rank r starts its passes at block 7r and sleeps now and then), so that
 * one rank re-reads stripes that others have already updated and evicted:
 * unless a rank's evictions between two sync points stay private to it,
 * those updates would be applied twice. Then one more redundant pass, a
 * sync point, a distributed pass (each rank updates the blocks it owns),
 * a sync point, and every rank checks every element; finally the
 * statistics must show the private spills.
 *   argv[1]: passes (default 3)
 *===----------------------------------------------------------------------===*/
#include "mpitest.h"

#include "iopoly_mpi.h"

#include <mpi.h>
#include <stdint.h>
#include <unistd.h>

/* The value every element holds after `passes` increments of its seed. */
static uint32_t expected(size_t i, int passes, int distributed_by) {
  uint32_t v = (uint32_t)(i * 2654435761u) + (uint32_t)passes * 3u;
  if (distributed_by >= 0)
    v = v * 5u + (uint32_t)distributed_by;
  return v;
}

static void rmw_pass(iopoly_array *a, size_t n, size_t per, int pass) {
  for (size_t k = 0; k < n; ++k) {
    size_t b = (k + (size_t)mt_rank * 7) % n;
    uint32_t *p = (uint32_t *)iopoly_attach(a, b, IOPOLY_READ | IOPOLY_WRITE);
    MT_CHECKF(p != NULL, "pass %d: attach block %zu", pass, b);
    for (size_t i = 0; i < per; ++i)
      p[i] += 3u;
    MT_CHECK(iopoly_release(a, b) == 0);
    if ((k + (size_t)mt_rank) % 16 == 0)
      usleep(200); /* keep the ranks out of step */
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int passes = argc > 1 ? atoi(argv[1]) : 3;
  MT_CHECKF(passes > 0, "bad pass count '%s'", argv[1]);

  const size_t per = iopoly_block_size() / sizeof(uint32_t);
  size_t dims[1] = {48 * per};
  iopoly_array *a = iopoly_open_comm("redundant", sizeof(uint32_t), 1, dims, NULL, IOPOLY_CREATE | IOPOLY_TRUNC,
                                     MPI_COMM_WORLD);
  MT_CHECK(a != NULL);
  const size_t n = iopoly_num_blocks(a);
  MT_CHECKF(n > 2 * iopoly_buffer_blocks(), "the array does not exceed the buffer");

  /* Initialization, by every rank (identical values). */
  for (size_t b = 0; b < n; ++b) {
    uint32_t *p = (uint32_t *)iopoly_attach(a, b, IOPOLY_WRITE);
    MT_CHECK(p != NULL);
    for (size_t i = 0; i < per; ++i)
      p[i] = expected(b * per + i, 0, -1);
    MT_CHECK(iopoly_release(a, b) == 0);
  }
  /* The redundant passes, with no sync point in between. */
  for (int pass = 0; pass < passes; ++pass)
    rmw_pass(a, n, per, pass);
  MT_CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS); /* sync point */
  for (size_t b = 0; b < n; ++b) {
    const uint32_t *p = (const uint32_t *)iopoly_attach(a, b, IOPOLY_READ);
    MT_CHECK(p != NULL);
    for (size_t i = 0; i < per; ++i)
      MT_CHECKF(p[i] == expected(b * per + i, passes, -1), "after %d redundant passes: element %zu is %u, expected %u",
                passes, b * per + i, p[i], expected(b * per + i, passes, -1));
    MT_CHECK(iopoly_release(a, b) == 0);
  }

  /* A redundant pass, a sync point (as at the start of a distributed loop),
   * then a pass where each rank updates the blocks it owns. */
  rmw_pass(a, n, per, passes);
  MT_CHECK(iopoly_sync(a) == 0);
  for (size_t b = (size_t)mt_rank; b < n; b += (size_t)size) {
    uint32_t *p = (uint32_t *)iopoly_attach(a, b, IOPOLY_READ | IOPOLY_WRITE);
    MT_CHECK(p != NULL);
    for (size_t i = 0; i < per; ++i)
      p[i] = p[i] * 5u + (uint32_t)mt_rank;
    MT_CHECK(iopoly_release(a, b) == 0);
  }
  MT_CHECK(iopoly_sync(a) == 0);
  for (size_t b = 0; b < n; ++b) {
    const uint32_t *p = (const uint32_t *)iopoly_attach(a, b, IOPOLY_READ);
    MT_CHECK(p != NULL);
    int owner = (int)(b % (size_t)size);
    for (size_t i = 0; i < per; ++i)
      MT_CHECKF(p[i] == expected(b * per + i, passes + 1, owner), "after the distributed pass: element %zu is %u, "
                "expected %u", b * per + i, p[i], expected(b * per + i, passes + 1, owner));
    MT_CHECK(iopoly_release(a, b) == 0);
  }

  char path[256];
  snprintf(path, sizeof path, "%s/stats%d.json", getenv("MT_WORK") ? getenv("MT_WORK") : ".", mt_rank);
  char *json = mt_stats_json(path);
  MT_EXPECT_JSON(json, "\"shared_spills\":");
  MT_CHECKF(size == 1 || strstr(json, "\"shared_spills\":0,") == NULL, "no private spill counted:\n%s", json);
  free(json);

  MT_CHECK(iopoly_close(a) == 0);
  MPI_Finalize();
  if (mt_rank == 0)
    printf("redundant: %d ranks, %d redundant passes over %zu blocks, all verified\n", size, passes, n);
  return 0;
}
