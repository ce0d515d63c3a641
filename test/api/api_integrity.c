/*===- api_integrity.c - Creation, commit and recovery scenarios ----------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Commands of api_helper for the integrity tests. Arrays are 1-D arrays of
 * BLOCKS * IOPOLY_STRIPE bytes; byte o of seed s is pattern(o, s), and seed
 * 0 means all zero.
 *
 *   fill NAME BLOCKS SEED FLAGS END
 *        FLAGS: create | trunc | rdwr (IOPOLY_CREATE, CREATE|TRUNC, RDWR)
 *        END:   close       iopoly_close, exit normally
 *               exit        exit without closing (the at-exit write-back)
 *               flush-crash iopoly_flush, then _exit(0): a crash after a commit
 *               crash       _exit(0) at once: a crash with writes pending
 *   check NAME BLOCKS SEED   open read-only and compare every byte
 *   fill-range NAME BLOCKS FIRST COUNT SEED
 *        open RDWR, write blocks [FIRST, FIRST+COUNT) with SEED, exit
 *        without closing. With HELPER_FSIZE_LIMIT=<bytes> the process may
 *        not write files beyond that size (RLIMIT_FSIZE, SIGXFSZ ignored):
 *        its write-backs fail.
 *   check-range NAME BLOCKS FIRST COUNT SEED   those blocks hold SEED, the
 *        others are zero
 *   crash-child NAME BLOCKS EPOCHS   the process the crash test kills:
 *        creates the array (CREATE|TRUNC), then for e = 1..EPOCHS writes
 *        every block with seed e in a shuffled order (evictions write back
 *        half-finished epochs), commits it with iopoly_flush - or every
 *        third epoch with iopoly_close and a reopen - and prints "e" once
 *        that returned 0 ("0" after the creation)
 *   crash-verify NAME BLOCKS   "state S" when the array opens and holds
 *        epoch S everywhere, "mixed ..." when it holds no single epoch,
 *        "error: ..." when it is refused
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static unsigned char pattern(size_t O, unsigned Seed) {
  return Seed ? (unsigned char)(O * 131u + Seed * 7u + O / 4099u) : 0;
}

static int fail(const char *What) {
  fprintf(stderr, "api_integrity: %s: %s\n", What, iopoly_last_error());
  return 1;
}

static iopoly_array *openBlocks(const char *Name, size_t Blocks, int Flags) {
  size_t Dims[1] = {Blocks * iopoly_block_size()};
  return iopoly_open(Name, 1, 1, Dims, Flags);
}

static int writeBlocks(iopoly_array *A, size_t First, size_t Count, unsigned Seed) {
  size_t S = iopoly_block_size();
  for (size_t B = First; B < First + Count; ++B) {
    unsigned char *P = iopoly_attach(A, B, IOPOLY_WRITE | IOPOLY_OVERWRITE);
    if (!P)
      return fail("attach");
    for (size_t I = 0; I < S; ++I)
      P[I] = pattern(B * S + I, Seed);
    if (iopoly_release(A, B) != 0)
      return fail("release");
  }
  return 0;
}

static int checkBlocks(const char *Name, size_t Blocks, size_t First, size_t Count, unsigned Seed) {
  iopoly_array *A = openBlocks(Name, Blocks, IOPOLY_RDONLY);
  if (!A) {
    printf("error: %s\n", iopoly_last_error());
    return 3;
  }
  size_t S = iopoly_block_size();
  for (size_t B = 0; B < Blocks; ++B) {
    const unsigned char *P = iopoly_attach(A, B, IOPOLY_READ);
    if (!P) {
      printf("error: %s\n", iopoly_last_error());
      return 3;
    }
    unsigned Want = B >= First && B < First + Count ? Seed : 0;
    for (size_t I = 0; I < S; ++I)
      if (P[I] != pattern(B * S + I, Want)) {
        printf("mismatch: byte %zu of block %zu is %u, expected %u (seed %u)\n", I, B, P[I],
               pattern(B * S + I, Want), Want);
        return 1;
      }
    iopoly_release(A, B);
  }
  iopoly_close(A);
  printf("ok\n");
  return 0;
}

static int cmdFill(const char *Name, size_t Blocks, unsigned Seed, const char *Flags, const char *End) {
  int F = !strcmp(Flags, "trunc") ? IOPOLY_CREATE | IOPOLY_TRUNC : !strcmp(Flags, "rdwr") ? IOPOLY_RDWR : IOPOLY_CREATE;
  iopoly_array *A = openBlocks(Name, Blocks, F);
  if (!A) {
    printf("error: %s\n", iopoly_last_error());
    return 3;
  }
  if (writeBlocks(A, 0, Blocks, Seed))
    return 1;
  fflush(stdout);
  if (!strcmp(End, "close"))
    return iopoly_close(A) == 0 ? 0 : fail("close");
  if (!strcmp(End, "flush-crash")) {
    if (iopoly_flush(A) != 0)
      return fail("flush");
    _exit(0);
  }
  if (!strcmp(End, "crash"))
    _exit(0);
  return 0; /* "exit": written back at exit */
}

static int cmdFillRange(const char *Name, size_t Blocks, size_t First, size_t Count, unsigned Seed) {
  const char *Limit = getenv("HELPER_FSIZE_LIMIT");
  iopoly_array *A = openBlocks(Name, Blocks, IOPOLY_RDWR);
  if (!A) {
    printf("error: %s\n", iopoly_last_error());
    return 3;
  }
  if (Limit) {
    /* After the open: only the write-backs meet the limit. */
    struct rlimit R = {strtoull(Limit, NULL, 10), RLIM_INFINITY};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &R) != 0)
      return fail("setrlimit");
  }
  if (writeBlocks(A, First, Count, Seed))
    return 1;
  printf("written, exiting without close\n");
  fflush(stdout);
  return 0;
}

static int cmdCrashChild(const char *Name, size_t Blocks, unsigned Epochs) {
  iopoly_array *A = openBlocks(Name, Blocks, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!A)
    return fail("create");
  printf("0\n");
  fflush(stdout);
  unsigned Rng = 12345;
  for (unsigned E = 1; E <= Epochs; ++E) {
    for (size_t K = 0; K < Blocks; ++K) {
      Rng = Rng * 1103515245u + 12345u;
      size_t B = (K * 7 + (Rng >> 16)) % Blocks; /* a shuffled walk ... */
      if (writeBlocks(A, B, 1, E))
        return 1;
    }
    if (writeBlocks(A, 0, Blocks, E)) /* ... then every block, in order */
      return 1;
    if (E % 3 == 0) {
      if (iopoly_close(A) != 0)
        return fail("close");
      A = NULL;
    } else if (iopoly_flush(A) != 0) {
      return fail("flush");
    }
    printf("%u\n", E);
    fflush(stdout);
    if (!A && !(A = openBlocks(Name, Blocks, IOPOLY_RDWR)))
      return fail("reopen");
  }
  return iopoly_close(A) == 0 ? 0 : fail("close");
}

static int cmdCrashVerify(const char *Name, size_t Blocks) {
  iopoly_array *A = openBlocks(Name, Blocks, IOPOLY_RDONLY);
  if (!A) {
    printf("error: %s\n", iopoly_last_error());
    return 3;
  }
  size_t S = iopoly_block_size();
  int Seed = -1;
  for (size_t B = 0; B < Blocks; ++B) {
    const unsigned char *P = iopoly_attach(A, B, IOPOLY_READ);
    if (!P) {
      printf("error: %s\n", iopoly_last_error());
      return 3;
    }
    for (size_t I = 0; I < S; ++I) {
      if (Seed < 0) /* pattern(0, s) = 7 s: the epoch, below 36 */
        Seed = P[0] / 7;
      if (P[I] != pattern(B * S + I, (unsigned)Seed)) {
        printf("mixed: byte %zu of block %zu is %u, epoch %d would be %u\n", I, B, P[I], Seed,
               pattern(B * S + I, (unsigned)Seed));
        return 1;
      }
    }
    iopoly_release(A, B);
  }
  iopoly_close(A);
  printf("state %d\n", Seed);
  return 0;
}

int integrityMain(int Argc, char **Argv, int *Rc) {
  const char *Cmd = Argv[1];
  if (!strcmp(Cmd, "fill") && Argc == 7)
    *Rc = cmdFill(Argv[2], strtoull(Argv[3], NULL, 10), (unsigned)atoi(Argv[4]), Argv[5], Argv[6]);
  else if (!strcmp(Cmd, "check") && Argc == 5)
    *Rc = checkBlocks(Argv[2], strtoull(Argv[3], NULL, 10), 0, strtoull(Argv[3], NULL, 10), (unsigned)atoi(Argv[4]));
  else if (!strcmp(Cmd, "fill-range") && Argc == 7)
    *Rc = cmdFillRange(Argv[2], strtoull(Argv[3], NULL, 10), strtoull(Argv[4], NULL, 10),
                       strtoull(Argv[5], NULL, 10), (unsigned)atoi(Argv[6]));
  else if (!strcmp(Cmd, "crash-child") && Argc == 5)
    *Rc = cmdCrashChild(Argv[2], strtoull(Argv[3], NULL, 10), (unsigned)atoi(Argv[4]));
  else if (!strcmp(Cmd, "crash-verify") && Argc == 4)
    *Rc = cmdCrashVerify(Argv[2], strtoull(Argv[3], NULL, 10));
  else if (!strcmp(Cmd, "check-range") && Argc == 7)
    *Rc = checkBlocks(Argv[2], strtoull(Argv[3], NULL, 10), strtoull(Argv[4], NULL, 10),
                      strtoull(Argv[5], NULL, 10), (unsigned)atoi(Argv[6]));
  else
    return 0;
  return 1;
}
