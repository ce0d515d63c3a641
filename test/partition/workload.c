/*===- workload.c - A program with every class of chunk, for the layer ----===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * workload [--block N] [--shift K] [--iters I] [--seed S] [--crash] [--noclose] INPUT OUTPUT
 *
 * INPUT (read only): every rank reads the 64-byte header (a duplicated
 * chunk) and its own block (local). OUTPUT, per iteration: rank 0 writes
 * the header that all ranks read back (broadcast); every rank writes the
 * block of rank (r + K) mod n, half with a collective call and half with a
 * nonblocking one (local, or a mismatch when K != 0 against a plan made
 * with K = 0), and a strided part through a vector view; all ranks write a
 * common 64-byte region in turn (central); an ordered shared-pointer
 * record per rank; then each rank reads its block and the first bytes of
 * the next block (broadcast) and checks them. The checksum of every byte
 * read is printed by rank 0: equal checksums, equal reads. --crash: every
 * rank stops with _exit(3) right after the first iteration's block writes,
 * as a node failure would. --noclose: OUTPUT is left open at MPI_Finalize
 * (the layer must gather it there).
 *===----------------------------------------------------------------------===*/
#include "ptest.h"

#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  pt_rank = r;
  long long B = 65536;
  int K = 0, iters = 2, crash = 0, noclose = 0;
  unsigned seed = 1;
  int a = 1;
  for (; a < argc && argv[a][0] == '-'; ++a) {
    if (!strcmp(argv[a], "--block") && a + 1 < argc)
      B = atoll(argv[++a]);
    else if (!strcmp(argv[a], "--shift") && a + 1 < argc)
      K = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--iters") && a + 1 < argc)
      iters = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
      seed = (unsigned)atoi(argv[++a]);
    else if (!strcmp(argv[a], "--crash"))
      crash = 1;
    else if (!strcmp(argv[a], "--noclose"))
      noclose = 1;
    else
      PT_CHECK(!"unknown option");
  }
  PT_CHECK(argc - a == 2 && B % 64 == 0 && B >= 256);
  const char *input = argv[a], *output = argv[a + 1];
  unsigned char *buf = malloc((size_t)B), *got = malloc((size_t)B), hdr[64];
  unsigned long long h = 1469598103934665603ULL;

  MPI_File in, out;
  PT_MPI(MPI_File_open(MPI_COMM_WORLD, input, MPI_MODE_RDONLY, MPI_INFO_NULL, &in));
  PT_MPI(MPI_File_read_at(in, 0, hdr, 64, MPI_BYTE, MPI_STATUS_IGNORE));
  h = pt_hash(h, hdr, 64);
  PT_MPI(MPI_File_read_at_all(in, 64 + r * B, buf, (int)B, MPI_BYTE, MPI_STATUS_IGNORE));
  h = pt_hash(h, buf, (size_t)B);
  PT_MPI(MPI_File_close(&in));

  int rc = MPI_File_open(MPI_COMM_WORLD, output, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &out);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "workload: rank %d: cannot open %s: %s\n", r, output, msg);
    MPI_Finalize();
    return 2;
  }
  if (!crash) /* a crash run overwrites the previous file in place */
    PT_MPI(MPI_File_set_size(out, 0)); /* every other run starts from an empty file */
  const long long blocks = 64, central = 64 + n * B, log = central + 64;
  const int half = (int)(B / 2);
  MPI_Datatype strided;
  MPI_Type_vector(4, 16, 64, MPI_BYTE, &strided); /* 4 x 16 bytes, 64 apart: within the 2nd half */
  MPI_Type_commit(&strided);
  for (int it = 0; it < iters; ++it) {
    unsigned s = seed * 1000 + (unsigned)it * 10;
    if (r == 0) {
      pt_fill(hdr, 64, s, 0);
      PT_MPI(MPI_File_write_at(out, 0, hdr, 64, MPI_BYTE, MPI_STATUS_IGNORE));
    }
    long long mine = blocks + ((r + K) % n) * B;
    pt_fill(buf, (size_t)B, s + 1, (unsigned long long)mine);
    PT_MPI(MPI_File_write_at_all(out, mine, buf, half, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_Request rq;
    PT_MPI(MPI_File_iwrite_at(out, mine + half, buf + half, half, MPI_BYTE, &rq));
    PT_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    /* The strided part again, through a view (same bytes, second pass). */
    PT_MPI(MPI_File_set_view(out, mine + half, MPI_BYTE, strided, "native", MPI_INFO_NULL));
    unsigned char pick[64];
    for (int i = 0; i < 64; ++i)
      pick[i] = buf[half + (i / 16) * 64 + i % 16];
    PT_MPI(MPI_File_write_all(out, pick, 64, MPI_BYTE, MPI_STATUS_IGNORE));
    PT_MPI(MPI_File_set_view(out, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
    if (crash) {
      fflush(stdout);
      _exit(3); /* every rank, at the same point: no close, no finalize */
    }
    for (int t = 0; t < n; ++t) {
      if (t == r) {
        unsigned char c[64];
        pt_fill(c, 64, s + 2 + (unsigned)r, 0);
        PT_MPI(MPI_File_write_at(out, central, c, 64, MPI_BYTE, MPI_STATUS_IGNORE));
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    PT_MPI(MPI_File_seek_shared(out, log + (long long)it * 8 * n, MPI_SEEK_SET));
    unsigned char rec[8];
    pt_fill(rec, 8, s + 3, (unsigned long long)r);
    PT_MPI(MPI_File_write_ordered(out, rec, 8, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    /* Read back: header, own block, the start of the next block. */
    PT_MPI(MPI_File_read_at(out, 0, got, 64, MPI_BYTE, MPI_STATUS_IGNORE));
    pt_fill(hdr, 64, s, 0);
    PT_CHECK(memcmp(got, hdr, 64) == 0);
    PT_MPI(MPI_File_read_at(out, mine, got, (int)B, MPI_BYTE, MPI_STATUS_IGNORE));
    PT_CHECK(memcmp(got, buf, (size_t)B) == 0);
    long long next = blocks + ((r + K + 1) % n) * B;
    PT_MPI(MPI_File_read_at(out, next, got, 32, MPI_BYTE, MPI_STATUS_IGNORE));
    pt_fill(buf, 32, s + 1, (unsigned long long)next);
    PT_CHECK(memcmp(got, buf, 32) == 0);
    h = pt_hash(h, got, 32);
    MPI_Offset size = 0;
    PT_MPI(MPI_File_get_size(out, &size));
    PT_CHECK(size == log + (long long)(it + 1) * 8 * n);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (!noclose)
    PT_MPI(MPI_File_close(&out));
  MPI_Type_free(&strided);
  unsigned long long all[1024];
  PT_CHECK(n <= 1024);
  MPI_Gather(&h, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (r == 0) {
    unsigned long long g = pt_hash(1469598103934665603ULL, all, sizeof(unsigned long long) * (size_t)n);
    printf("checksum %016llx\n", g);
  }
  free(buf);
  free(got);
  MPI_Finalize();
  return 0;
}
