/*===- sequences.c - Hand-written MPI-IO access sequences for the profiler ===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * sequences FILE EXPECTED_PREFIX
 * Every rank makes a fixed sequence of accesses (explicit offsets, a vector
 * view, a subarray view, nonblocking calls completed by MPI_Waitall and
 * MPI_Test, shared-pointer and ordered writes, a split collective, a read
 * cut short by the end of the file) and writes the records the profiler
 * must log for them to EXPECTED_PREFIX.<rank>, one per line:
 *   op offset length flags   (op 0 read, 1 write; flags as in ProfileFormat.h)
 * computed here from the MPI standard's rules, independently of the
 * profiler. Runs on 4 ranks.
 *===----------------------------------------------------------------------===*/
#include "ptest.h"

enum { F_COLL = 1, F_NB = 2, F_SHARED = 4, F_ORDERED = 8, F_INDIV = 16, F_SPLIT = 256 };

static FILE *expect;
static long long last_off = -1, last_len = 0;
static int last_op = -1, last_flags = 0;

/* Expected pieces of one call: consecutive bytes coalesce as the profiler does. */
static void flush_piece(void) {
  if (last_op >= 0)
    fprintf(expect, "%d %lld %lld %d\n", last_op, last_off, last_len, last_flags);
  last_op = -1;
}
static void piece(int op, long long off, long long len, int flags) {
  if (last_op == op && last_flags == flags && last_off + last_len == off) {
    last_len += len;
    return;
  }
  flush_piece();
  last_op = op;
  last_off = off;
  last_len = len;
  last_flags = flags;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  pt_rank = r;
  PT_CHECK(argc == 3 && n == 4);
  char name[4096];
  snprintf(name, sizeof name, "%s.%d", argv[2], r);
  expect = fopen(name, "w");
  PT_CHECK(expect != NULL);
  MPI_File fh;
  PT_MPI(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  unsigned char buf[4096], in[4096];
  pt_fill(buf, sizeof buf, (unsigned)r, 0);

  /* a. explicit offsets */
  PT_MPI(MPI_File_write_at(fh, r * 256, buf, 256, MPI_BYTE, MPI_STATUS_IGNORE));
  piece(1, r * 256, 256, 0), flush_piece();
  PT_MPI(MPI_File_read_at(fh, r * 256 + 16, in, 100, MPI_BYTE, MPI_STATUS_IGNORE));
  piece(0, r * 256 + 16, 100, 0), flush_piece();

  /* b. a vector view of ints: two blocks of 2 ints, stride 2n ints, per tile */
  MPI_Datatype vec;
  MPI_Type_vector(2, 2, 2 * n, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  long long disp = 4096 + r * 16, extent = (2LL * n * (2 - 1) + 2) * 4;
  PT_MPI(MPI_File_set_view(fh, disp, MPI_INT, vec, "native", MPI_INFO_NULL));
  PT_MPI(MPI_File_write_all(fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < 8; ++i)
    piece(1, disp + (i / 4) * extent + ((i % 4) / 2) * (2LL * n * 4) + (i % 2) * 4, 4, F_COLL | F_INDIV);
  flush_piece();
  /* the individual pointer, moved back to the second tile (etype 4), once
   * the collective write is on disk everywhere (its aggregator may be late) */
  PT_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  PT_MPI(MPI_File_sync(fh));
  PT_MPI(MPI_File_seek(fh, 4, MPI_SEEK_SET));
  PT_MPI(MPI_File_read(fh, in, 2, MPI_INT, MPI_STATUS_IGNORE));
  piece(0, disp + extent, 8, F_INDIV), flush_piece();

  /* c. a 2 x 2 grid of 4 x 4 tiles of doubles in an 8 x 8 array */
  MPI_Datatype sub;
  int sizes[2] = {8, 8}, subs[2] = {4, 4}, starts[2] = {(r / 2) * 4, (r % 2) * 4};
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
  MPI_Type_commit(&sub);
  PT_MPI(MPI_File_set_view(fh, 8192, MPI_DOUBLE, sub, "native", MPI_INFO_NULL));
  PT_MPI(MPI_File_write_at_all(fh, 0, buf, 16, MPI_DOUBLE, MPI_STATUS_IGNORE));
  for (int i = 0; i < 4; ++i)
    piece(1, 8192 + ((starts[0] + i) * 8LL + starts[1]) * 8, 32, F_COLL);
  flush_piece();
  PT_MPI(MPI_File_read_at_all(fh, 4, in, 8, MPI_DOUBLE, MPI_STATUS_IGNORE)); /* rows 1 and 2 */
  for (int i = 1; i < 3; ++i)
    piece(0, 8192 + ((starts[0] + i) * 8LL + starts[1]) * 8, 32, F_COLL);
  flush_piece();

  /* d. nonblocking, completed by MPI_Waitall and by MPI_Test */
  PT_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  MPI_Request rq[2];
  PT_MPI(MPI_File_iwrite_at(fh, 12288 + r * 64, buf, 64, MPI_BYTE, &rq[0]));
  PT_MPI(MPI_File_iread_at(fh, r * 256, in, 32, MPI_BYTE, &rq[1]));
  PT_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  piece(1, 12288 + r * 64, 64, F_NB), flush_piece();
  piece(0, r * 256, 32, F_NB), flush_piece();
  PT_MPI(MPI_File_seek(fh, 16384 + r * 100, MPI_SEEK_SET));
  MPI_Request one;
  PT_MPI(MPI_File_iwrite(fh, buf, 50, MPI_BYTE, &one));
  int done = 0;
  while (!done)
    PT_MPI(MPI_Test(&one, &done, MPI_STATUS_IGNORE));
  piece(1, 16384 + r * 100, 50, F_NB | F_INDIV), flush_piece();

  /* e. shared pointer: turns by rank, then ordered */
  PT_MPI(MPI_File_seek_shared(fh, 20000, MPI_SEEK_SET));
  long long at = 20000;
  for (int t = 0; t < n; ++t) {
    if (t == r) {
      PT_MPI(MPI_File_write_shared(fh, buf, 10 + r, MPI_BYTE, MPI_STATUS_IGNORE));
      piece(1, at, 10 + r, F_SHARED), flush_piece();
    }
    at += 10 + t;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  PT_MPI(MPI_File_write_ordered(fh, buf, 5, MPI_BYTE, MPI_STATUS_IGNORE));
  piece(1, at + 5 * r, 5, F_COLL | F_SHARED | F_ORDERED), flush_piece();
  at += 5 * n;
  MPI_Offset pos;
  PT_MPI(MPI_File_get_position_shared(fh, &pos));
  if (pos != at)
    fprintf(stderr, "rank %d: shared pointer at %lld, expected %lld\n", r, (long long)pos, at);
  PT_CHECK(pos == at);
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 1) {
    MPI_Request rs;
    PT_MPI(MPI_File_iwrite_shared(fh, buf, 7, MPI_BYTE, &rs));
    PT_MPI(MPI_Wait(&rs, MPI_STATUS_IGNORE));
    piece(1, at, 7, F_NB | F_SHARED), flush_piece();
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* f. split collective */
  PT_MPI(MPI_File_write_at_all_begin(fh, 24000 + r * 8, buf, 8, MPI_BYTE));
  PT_MPI(MPI_File_write_at_all_end(fh, buf, MPI_STATUS_IGNORE));
  piece(1, 24000 + r * 8, 8, F_COLL | F_SPLIT), flush_piece();

  /* g. a read cut short by the end of the file */
  PT_MPI(MPI_File_set_size(fh, 30000));
  MPI_Status st;
  int got = -1;
  PT_MPI(MPI_File_read_at(fh, 29990, in, 100, MPI_BYTE, &st));
  MPI_Get_count(&st, MPI_BYTE, &got);
  PT_CHECK(got == 10);
  piece(0, 29990, 10, 0), flush_piece();

  PT_MPI(MPI_File_close(&fh));
  MPI_Type_free(&vec);
  MPI_Type_free(&sub);
  fclose(expect);
  MPI_Finalize();
  return 0;
}
