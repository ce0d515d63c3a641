/*===- shared_array.c - Rank 0 writes an array, every rank reads it -------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Run under mpirun -np 4 with IOPOLY_BACKEND=mpiio and a small buffer.
 * Rank 0 creates a 2-D column-major array and writes every block; after a
 * barrier all ranks (rank 0 included) open it read-only at the same time,
 * each with its own buffer, and check every byte, visiting the blocks in a
 * different order and with prefetch hints. Writing through the read-only
 * handle must fail, and reopening with another shape must fail with an
 * error naming the file.
 *===----------------------------------------------------------------------===*/
#include "mpitest.h"

#include <mpi.h>

#define SEED 4242u

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MT_CHECKF(size == 4, "run with 4 ranks, not %d", size);

  size_t dims[2] = {301, 257};
  const int layout[2] = {1, 0};
  if (mt_rank == 0) {
    iopoly_array *a = iopoly_open_layout("shared", 4, 2, dims, layout, IOPOLY_CREATE | IOPOLY_TRUNC);
    MT_CHECK(a != NULL);
    MT_CHECKF(iopoly_num_blocks(a) > 2 * iopoly_buffer_blocks(), "array does not exceed the buffer");
    mt_write_all(a, SEED);
    MT_CHECK(iopoly_close(a) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  iopoly_array *a = iopoly_open_layout("shared", 4, 2, dims, layout, IOPOLY_RDONLY);
  MT_CHECK(a != NULL);
  const size_t n = iopoly_num_blocks(a);
  const size_t first = (size_t)mt_rank * n / 4;
  for (size_t k = 0; k < n; ++k) {
    size_t b = (first + k) % n;
    for (size_t ahead = 1; ahead <= 3; ++ahead)
      MT_CHECK(iopoly_prefetch(a, (b + ahead) % n) >= 0);
    const unsigned char *p = (const unsigned char *)iopoly_attach(a, b, IOPOLY_READ);
    MT_CHECKF(p != NULL, "attach block %zu", b);
    mt_verify_block(a, b, p, SEED);
    MT_CHECK(iopoly_release(a, b) == 0);
  }
  MT_CHECKF(iopoly_attach(a, 0, IOPOLY_WRITE) == NULL, "a read-only array accepted an attach for writing");
  MT_CHECK(iopoly_close(a) == 0);

  iopoly_counters c;
  iopoly_get_counters(&c);
  MT_CHECKF(c.evictions > 0, "no evictions: the buffer is too large for this test");
  MT_CHECKF(c.writebacks == 0 || mt_rank == 0, "a reader wrote %llu blocks back", c.writebacks);

  /* Every rank tries a wrong shape at once: an error naming the file. */
  MPI_Barrier(MPI_COMM_WORLD);
  size_t other[2] = {301, 256};
  MT_CHECK(iopoly_open_layout("shared", 4, 2, other, layout, IOPOLY_RDONLY) == NULL);
  MT_CHECKF(strstr(iopoly_last_error(), "shared.iop") != NULL, "error does not name the file");

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (mt_rank == 0)
    printf("shared_array: 4 ranks verified all %zu blocks of the shared array\n", n);
  return 0;
}
