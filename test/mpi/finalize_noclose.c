/*===- finalize_noclose.c - MPI_Finalize with arrays still open -----------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * "write": the program initializes MPI itself (MPI_THREAD_MULTIPLE), writes
 * an array that fits in the buffer (so nothing has reached the disk yet: no
 * write-back has happened), keeps one block attached, starts background
 * prefetches of a second, read-only array, and calls MPI_Finalize without
 * closing anything while they run. The backend's MPI_Finalize hook must
 * write every dirty block back while MPI-IO still works and close the files
 * only once no transfer is in flight. After MPI_Finalize, opening a new
 * array must fail with an error that says why; the process then exits
 * without closing (the exit handler must not report spurious errors: the
 * driver checks stderr); odd ranks close their arrays, which must work.
 * "verify": a new process checks every byte. "late_write": a block changed
 * after MPI_Finalize cannot be written: iopoly_close fails, and stderr says
 * why at the first failed write and at exit.
 *
 * The program wraps MPI_File_read_at and MPI_File_close (the backend module
 * binds to these exported wrappers, which call PMPI_*): reads on I/O threads
 * are slowed down so that they are surely in flight when MPI_Finalize
 * starts, and the wrappers record any file closed while a read is in
 * flight, and any MPI-IO call after MPI_Finalize; both must be zero.
 *===----------------------------------------------------------------------===*/
#include "mpitest.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static pthread_t main_thread;
static atomic_int in_flight, closed_during_io, calls_after_finalize, reads_done;
static atomic_bool finalized;

int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t, MPI_Status *st) {
  if (atomic_load(&finalized))
    atomic_fetch_add(&calls_after_finalize, 1);
  atomic_fetch_add(&in_flight, 1);
  if (!pthread_equal(pthread_self(), main_thread))
    usleep(20000); /* a slow disk (20 ms a read), for the I/O threads only */
  int r = PMPI_File_read_at(fh, off, buf, count, t, st);
  atomic_fetch_sub(&in_flight, 1);
  atomic_fetch_add(&reads_done, 1);
  return r;
}

int MPI_File_close(MPI_File *fh) {
  if (atomic_load(&finalized))
    atomic_fetch_add(&calls_after_finalize, 1);
  if (atomic_load(&in_flight) > 0)
    atomic_fetch_add(&closed_during_io, 1);
  return PMPI_File_close(fh);
}

static unsigned seed_of(int rank) { return 3100u + (unsigned)rank; }

int main(int argc, char **argv) {
  int provided;
  main_thread = pthread_self();
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  const char *mode = argc > 1 ? argv[1] : "write";
  char name[32], busy_name[32];
  snprintf(name, sizeof name, "noclose%d", mt_rank);
  snprintf(busy_name, sizeof busy_name, "busy%d", mt_rank);
  size_t dims[1] = {(size_t)(40 + mt_rank) * iopoly_block_size() + 77};
  size_t busy_dims[1] = {150 * iopoly_block_size()};

  if (strcmp(mode, "verify") == 0) {
    iopoly_array *a = iopoly_open(name, 1, 1, dims, IOPOLY_RDONLY);
    MT_CHECKF(a != NULL, "open %s", name);
    mt_verify_all(a, seed_of(mt_rank), 0);
    MT_CHECK(iopoly_close(a) == 0);
    MPI_Finalize();
    return 0;
  }
  if (strcmp(mode, "late_write") == 0) {
    /* Data written after MPI_Finalize cannot reach the disk: the close and
     * the exit handler must say so (the driver checks stderr). */
    iopoly_array *a = iopoly_open("late", 1, 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
    MT_CHECK(a != NULL);
    mt_write_all(a, 1u);
    MPI_Finalize();
    unsigned char *p = (unsigned char *)iopoly_attach(a, 0, IOPOLY_WRITE);
    MT_CHECK(p != NULL); /* resident: no I/O needed */
    p[0] ^= 0xff;
    MT_CHECK(iopoly_release(a, 0) == 0);
    MT_CHECKF(iopoly_close(a) != 0, "iopoly_close succeeded although block 0 could not be written");
    printf("late_write: iopoly_close: %s\n", iopoly_last_error());
    return 0; /* the exit handler reports the unwritten block again */
  }
  MT_CHECKF(strcmp(mode, "write") == 0, "unknown mode '%s'", mode);

  /* The array the I/O threads will be reading during MPI_Finalize. */
  iopoly_array *busy = iopoly_open(busy_name, 1, 1, busy_dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  MT_CHECK(busy != NULL);
  mt_write_all(busy, 1u);
  MT_CHECK(iopoly_close(busy) == 0);
  busy = iopoly_open(busy_name, 1, 1, busy_dims, IOPOLY_RDONLY);
  MT_CHECK(busy != NULL);
  iopoly_reset_stats();

  iopoly_array *a = iopoly_open(name, 1, 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  MT_CHECKF(a != NULL, "create %s", name);
  size_t n = iopoly_num_blocks(a);
  MT_CHECKF(n < iopoly_buffer_blocks(), "the array must fit in the buffer for this test");
  mt_write_all(a, seed_of(mt_rank));
  /* A block still attached (for reading) when MPI is finalized. */
  MT_CHECK(iopoly_attach(a, 1, IOPOLY_READ) != NULL);

  iopoly_counters c;
  iopoly_get_counters(&c);
  MT_CHECKF(c.writebacks == 0 && c.evictions == 0,
            "%llu write-backs before MPI_Finalize: the test would not show that the hook writes back",
            c.writebacks);

  /* Background fetches in flight while MPI is finalized (they fit in the
   * free frames: no dirty block of `a` is evicted by them). */
  MT_CHECK(iopoly_num_blocks(busy) + n + 8 < iopoly_buffer_blocks());
  for (size_t b = 0; b < iopoly_num_blocks(busy); ++b)
    MT_CHECK(iopoly_prefetch(busy, b) == 0);

  int reads_before = atomic_load(&reads_done);
  MPI_Finalize(); /* without iopoly_close */
  atomic_store(&finalized, 1);
  int reads_during = atomic_load(&reads_done) - reads_before;
  MT_CHECKF(reads_during > 0 && (size_t)reads_during < iopoly_num_blocks(busy),
            "%d of %zu prefetches ran during MPI_Finalize: the test did not overlap I/O with it", reads_during,
            iopoly_num_blocks(busy));
  MT_CHECKF(atomic_load(&closed_during_io) == 0, "%d files were closed while a read was in flight",
            atomic_load(&closed_during_io));

  iopoly_get_counters(&c);
  MT_CHECKF(c.writebacks == n, "MPI_Finalize wrote back %llu of %zu dirty blocks", c.writebacks, n);
  MT_CHECKF(c.bytes_written == n * iopoly_block_size(), "%llu bytes written", c.bytes_written);

  /* MPI is gone: a new array cannot be opened through MPI-IO. */
  size_t small[1] = {100};
  char after[32]; /* one name per rank: ranks must not share a writable array */
  snprintf(after, sizeof after, "after_finalize%d", mt_rank);
  MT_CHECK(iopoly_open(after, 1, 1, small, IOPOLY_CREATE) == NULL);
  MT_CHECKF(strstr(iopoly_last_error(), "MPI_Finalize") != NULL, "unclear error");
  /* Blocks in the buffer stay readable; the attached one can be released. */
  const unsigned char *p = (const unsigned char *)iopoly_attach(a, 0, IOPOLY_READ);
  MT_CHECK(p != NULL);
  mt_verify_block(a, 0, p, seed_of(mt_rank));
  MT_CHECK(iopoly_release(a, 0) == 0);
  MT_CHECK(iopoly_release(a, 1) == 0);
  if (mt_rank % 2) {
    /* Closing clean arrays after MPI_Finalize succeeds (others never close). */
    MT_CHECK(iopoly_close(a) == 0);
    MT_CHECK(iopoly_close(busy) == 0);
  }
  usleep(50000); /* queued prefetches now fail quietly */
  MT_CHECKF(atomic_load(&calls_after_finalize) == 0, "%d MPI-IO calls after MPI_Finalize",
            atomic_load(&calls_after_finalize));
  if (mt_rank == 0)
    printf("finalize_noclose: MPI_Finalize wrote back %zu blocks per rank, %d reads overlapped it\n", n,
           reads_during);
  return 0; /* the array is never closed */
}
