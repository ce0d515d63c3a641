/*===- shared_comm.c - One array written by every rank, read by all -------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Run under mpirun -np 2, 4 or 8 with a buffer much smaller than the array.
 * The ranks open one array with iopoly_open_comm(MPI_COMM_WORLD) and each
 * writes the bytes it owns; ownership is interleaved every `grain` bytes
 * (grain < stripe), so every stripe holds bytes of every rank, and stripes
 * are evicted (partial write-backs) before the sync point. After the sync
 * point (MPI_Barrier, or iopoly_sync) every rank checks every byte: each
 * must carry its writer's pattern, so nobody overwrote anybody. A second
 * round moves ownership by one rank, writes again through blocks the
 * ranks keep attached across the sync point (read again in place), and
 * checks again; then the array is closed collectively, reopened and
 * checked by every rank, and the statistics must show the sync points.
 *   argv[1]: "barrier" or "sync" (the sync point used)
 *   argv[2]: grain in bytes (default 24)
 *===----------------------------------------------------------------------===*/
#include "mpitest.h"

#include "iopoly_mpi.h"

#include <mpi.h>

static int owner(size_t off, size_t grain, int round, int size) { return (int)((off / grain + (size_t)round) % (size_t)size); }

static unsigned char value(size_t off, int writer, int round) { return mt_byte(1000u * (unsigned)round + (unsigned)writer, off); }

static void sync_point(const char *how, iopoly_array *a) {
  if (strcmp(how, "barrier") == 0)
    MT_CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
  else
    MT_CHECK(iopoly_sync(a) == 0);
}

/* Every byte of every block: the pattern of the round's owner. */
static void check_all(iopoly_array *a, size_t grain, int round, int size) {
  size_t S = iopoly_block_size();
  for (size_t k = 0; k < iopoly_num_blocks(a); ++k) {
    size_t b = (k + (size_t)mt_rank * 5) % iopoly_num_blocks(a);
    const unsigned char *p = (const unsigned char *)iopoly_attach(a, b, IOPOLY_READ);
    MT_CHECKF(p != NULL, "attach block %zu", b);
    for (size_t i = 0; i < mt_block_bytes(a, b); ++i) {
      size_t off = b * S + i;
      int w = owner(off, grain, round, size);
      MT_CHECKF(p[i] == value(off, w, round), "round %d: byte %zu (block %zu) is 0x%02x, rank %d wrote 0x%02x", round,
                off, b, p[i], w, value(off, w, round));
    }
    MT_CHECK(iopoly_release(a, b) == 0);
  }
}

/* Writes this rank's bytes of block b. */
static void write_mine(unsigned char *p, iopoly_array *a, size_t b, size_t grain, int round, int size) {
  size_t S = iopoly_block_size();
  for (size_t i = 0; i < mt_block_bytes(a, b); ++i) {
    size_t off = b * S + i;
    if (owner(off, grain, round, size) == mt_rank)
      p[i] = value(off, mt_rank, round);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *how = argc > 1 ? argv[1] : "barrier";
  size_t grain = argc > 2 ? (size_t)atol(argv[2]) : 24;
  MT_CHECKF(strcmp(how, "barrier") == 0 || strcmp(how, "sync") == 0, "unknown sync point '%s'", how);

  size_t dims[1] = {40 * iopoly_block_size() + 777};
  iopoly_array *a = iopoly_open_comm("common", 1, 1, dims, NULL, IOPOLY_CREATE | IOPOLY_TRUNC, MPI_COMM_WORLD);
  MT_CHECK(a != NULL);
  const size_t n = iopoly_num_blocks(a);
  MT_CHECKF(n > 2 * iopoly_buffer_blocks(), "the array does not exceed the buffer");

  /* Round 0: attach, write my bytes, release; evictions write them early. */
  for (size_t b = 0; b < n; ++b) {
    unsigned char *p = (unsigned char *)iopoly_attach(a, b, IOPOLY_READ | IOPOLY_WRITE);
    MT_CHECKF(p != NULL, "attach block %zu for writing", b);
    write_mine(p, a, b, grain, 0, size);
    MT_CHECK(iopoly_release(a, b) == 0);
  }
  sync_point(how, a);
  check_all(a, grain, 0, size);

  /* Round 1: blocks 0..2 stay attached for writing across the sync point. */
  const size_t held = 3;
  unsigned char *keep[3];
  for (size_t b = 0; b < held; ++b) {
    keep[b] = (unsigned char *)iopoly_attach(a, b, IOPOLY_READ | IOPOLY_WRITE);
    MT_CHECK(keep[b] != NULL);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* nobody writes round 1 before all checked round 0 */
  for (size_t b = 0; b < n; ++b) {
    unsigned char *p = b < held ? keep[b] : (unsigned char *)iopoly_attach(a, b, IOPOLY_WRITE);
    MT_CHECKF(p != NULL, "attach block %zu for writing", b);
    write_mine(p, a, b, grain, 1, size);
    if (b >= held)
      MT_CHECK(iopoly_release(a, b) == 0);
  }
  sync_point(how, a);
  /* The attached blocks were read again in place: they show every rank's bytes. */
  for (size_t b = 0; b < held; ++b)
    for (size_t i = 0; i < iopoly_block_size(); ++i) {
      size_t off = b * iopoly_block_size() + i;
      int w = owner(off, grain, 1, size);
      MT_CHECKF(keep[b][i] == value(off, w, 1), "attached block %zu byte %zu was not refreshed", b, i);
    }
  for (size_t b = 0; b < held; ++b)
    MT_CHECK(iopoly_release(a, b) == 0);
  check_all(a, grain, 1, size);

  char path[256];
  snprintf(path, sizeof path, "%s/stats%d.json", getenv("MT_WORK") ? getenv("MT_WORK") : ".", mt_rank);
  char *json = mt_stats_json(path);
  MT_EXPECT_JSON(json, "\"sync_points\":");
  MT_CHECKF(strstr(json, "\"sync_points\":0,") == NULL, "no sync point counted:\n%s", json);
  MT_EXPECT_JSON(json, "\"array\":\"common\"");
  free(json);

  MT_CHECK(iopoly_close(a) == 0); /* collective */
  a = iopoly_open_comm("common", 1, 1, dims, NULL, IOPOLY_RDONLY, MPI_COMM_WORLD);
  MT_CHECK(a != NULL);
  check_all(a, grain, 1, size);
  MT_CHECK(iopoly_close(a) == 0);

  MPI_Finalize();
  if (mt_rank == 0)
    printf("shared_comm (%s, grain %zu): %d ranks wrote interleaved bytes of %zu blocks, all verified\n", how, grain,
           size, n);
  return 0;
}
