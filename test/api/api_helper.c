/*===- api_helper.c - C API scenarios run in their own process ------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The runtime reads IOPOLY_* once per process, so every API test runs this
 * program with its own environment (ApiTest.cpp). Each command is one
 * scenario; an expected error is printed on stdout as "error: <message>"
 * and the program exits with 3; an unexpected failure exits with 1 and says
 * why on stderr; success exits with 0.
 *
 *   write NAME ROWS COLS SEED close|noclose   create (TRUNC) and fill
 *   verify NAME ROWS COLS SEED                reopen read-only, check every byte
 *   open NAME ELEM ROWS COLS rm|cm ro|rw|create
 *   out-of-range NAME ROWS COLS               attach/release/prefetch past the end
 *   release-unattached NAME ROWS COLS
 *   double-close NAME ROWS COLS
 *   write-readonly NAME ROWS COLS
 *   overfill NAME ROWS COLS                   attach one block more than the buffer
 *   stats NAME                                a run with known counters
 *   alloc-touch NAME BYTES OFFSET             touch iopoly_alloc memory directly
 *   plain2d NAME ROWS COLS                    doubles in C order, no layout recorded
 *   alloc-plain NAME BYTES free|iopoly_free   plain C and libc (qsort, memcmp, memcpy) on
 *                                             iopoly_alloc memory, then free and verify the files
 *   alloc-threads NAME BYTES THREADS          several threads fault on one array at once
 *   alloc-bad NAME BYTES WHAT                 before, after, freed, free-inner, realloc-grow:
 *                                             must stop naming the array
 *   alloc-realloc NAME BYTES                  shrinking realloc keeps the pointer, 0 frees
 *   alloc-elems NAME COUNT ELEM trunc|keep|check  iopoly_alloc_elems; write or check a byte pattern
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"
#include "iopoly/abi.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ELEM 8

static int die(const char *What) {
  fprintf(stderr, "api_helper: %s: %s\n", What, iopoly_last_error());
  return 1;
}

/* An expected error: print it for the test to check. */
static int expected(const char *What) {
  const char *E = iopoly_last_error();
  if (!E || !*E) {
    fprintf(stderr, "api_helper: %s failed without a message\n", What);
    return 1;
  }
  printf("error: %s\n", E);
  return 3;
}

static unsigned char patternByte(size_t Offset, unsigned Seed) {
  return (unsigned char)(Offset * 131u + Seed * 7u + Offset / 4099u);
}

static size_t arg(const char *S) { return (size_t)strtoull(S, NULL, 10); }

static iopoly_array *openShape(const char *Name, size_t Rows, size_t Cols, int Flags) {
  size_t Dims[2] = {Rows, Cols};
  return iopoly_open(Name, ELEM, 2, Dims, Flags);
}

static int cmdWrite(const char *Name, size_t Rows, size_t Cols, unsigned Seed, int Close) {
  iopoly_array *A = openShape(Name, Rows, Cols, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!A)
    return die("open");
  size_t S = iopoly_block_size(), N = iopoly_num_blocks(A), Bytes = iopoly_array_bytes(A);
  for (size_t B = 0; B < N; ++B) {
    unsigned char *P = iopoly_attach(A, B, IOPOLY_WRITE | IOPOLY_OVERWRITE);
    if (!P)
      return die("attach");
    size_t Len = (B + 1) * S <= Bytes ? S : Bytes - B * S;
    for (size_t I = 0; I < Len; ++I)
      P[I] = patternByte(B * S + I, Seed);
    if (iopoly_release(A, B) != 0)
      return die("release");
  }
  if (Close && iopoly_close(A) != 0)
    return die("close");
  /* Without close, the at-exit write-back must save everything. */
  printf("wrote %zu bytes in %zu blocks\n", Bytes, N);
  return 0;
}

static int cmdVerify(const char *Name, size_t Rows, size_t Cols, unsigned Seed) {
  iopoly_array *A = openShape(Name, Rows, Cols, IOPOLY_RDONLY);
  if (!A)
    return die("open");
  size_t S = iopoly_block_size(), N = iopoly_num_blocks(A), Bytes = iopoly_array_bytes(A);
  for (size_t B = 0; B < N; ++B) {
    const unsigned char *P = iopoly_attach(A, B, IOPOLY_READ);
    if (!P)
      return die("attach");
    size_t Len = (B + 1) * S <= Bytes ? S : Bytes - B * S;
    for (size_t I = 0; I < Len; ++I)
      if (P[I] != patternByte(B * S + I, Seed)) {
        fprintf(stderr, "api_helper: byte %zu of '%s' is %u, expected %u\n", B * S + I, Name, P[I],
                patternByte(B * S + I, Seed));
        return 1;
      }
    if (iopoly_release(A, B) != 0)
      return die("release");
  }
  if (iopoly_close(A) != 0)
    return die("close");
  printf("verified %zu bytes\n", Bytes);
  return 0;
}

static int cmdOpen(char **Argv) {
  size_t Dims[2] = {arg(Argv[3]), arg(Argv[4])};
  int ColMajor[2] = {1, 0};
  int Flags = !strcmp(Argv[6], "ro") ? IOPOLY_RDONLY : !strcmp(Argv[6], "rw") ? IOPOLY_RDWR : IOPOLY_CREATE;
  iopoly_array *A =
      iopoly_open_layout(Argv[1], arg(Argv[2]), 2, Dims, !strcmp(Argv[5], "cm") ? ColMajor : NULL, Flags);
  if (!A)
    return expected("iopoly_open");
  printf("opened '%s'\n", iopoly_array_name(A));
  return iopoly_close(A) == 0 ? 0 : die("close");
}

/* Element (i, j) of the 2-D arrays of fill2d/check2d: its own coordinates,
 * so that a layout mix-up shows as a wrong value. */
static double value2d(size_t I, size_t J) { return (double)I * 100000.0 + (double)J + 0.5; }

/* fill2d/check2d NAME ROWS COLS rm|cm: writes or checks every element of a
 * 2-D array of doubles in the given file layout, through iopoly_offset. */
static int cmdElements2d(const char *Name, size_t Rows, size_t Cols, const char *Layout, int Write) {
  size_t Dims[2] = {Rows, Cols};
  int ColMajor[2] = {1, 0};
  iopoly_array *A = iopoly_open_layout(Name, sizeof(double), 2, Dims, !strcmp(Layout, "cm") ? ColMajor : NULL,
                                       Write ? IOPOLY_CREATE | IOPOLY_TRUNC : IOPOLY_RDONLY);
  if (!A)
    return expected("iopoly_open");
  size_t S = iopoly_block_size();
  for (size_t I = 0; I < Rows; ++I)
    for (size_t J = 0; J < Cols; ++J) {
      size_t Index[2] = {I, J};
      size_t Off = iopoly_offset(A, Index);
      unsigned char *P = iopoly_attach(A, Off / S, Write ? IOPOLY_WRITE : IOPOLY_READ);
      if (!P)
        return die("attach");
      double V;
      if (Write) {
        V = value2d(I, J);
        memcpy(P + Off % S, &V, sizeof V);
      } else {
        memcpy(&V, P + Off % S, sizeof V);
        if (V != value2d(I, J)) {
          fprintf(stderr, "api_helper: %s[%zu][%zu] is %g, expected %g\n", Name, I, J, V, value2d(I, J));
          return 1;
        }
      }
      iopoly_release(A, Off / S);
    }
  if (iopoly_close(A) != 0)
    return die("close");
  printf("%s %zu elements\n", Write ? "wrote" : "checked", Rows * Cols);
  return 0;
}

/* alloc2d NAME ROWS COLS rm|cm trunc|keep|check: what a module whose
 * layout pass stored an allocated ROWSxCOLS array of doubles in layout
 * rm or cm does: iopoly_alloc_flags, then __iopoly_alloc_layout, then
 * (trunc, keep) writes every element at its address in that layout, or
 * (check) checks them. */
static int cmdAlloc2d(const char *Name, size_t Rows, size_t Cols, const char *Layout, const char *What) {
  int Cm = !strcmp(Layout, "cm");
  double *P = iopoly_alloc_flags(Name, Rows * Cols * sizeof(double),
                                 !strcmp(What, "trunc") ? IOPOLY_CREATE | IOPOLY_TRUNC : IOPOLY_CREATE);
  if (!P)
    return expected("iopoly_alloc");
  size_t Dims[2] = {Rows, Cols};
  int Perm[2] = {Cm, !Cm};
  __iopoly_alloc_layout(P, sizeof(double), 2, Dims, Perm);
  for (size_t I = 0; I < Rows; ++I)
    for (size_t J = 0; J < Cols; ++J) {
      double *E = Cm ? &P[J * Rows + I] : &P[I * Cols + J];
      if (strcmp(What, "check"))
        *E = value2d(I, J);
      else if (*E != value2d(I, J)) {
        fprintf(stderr, "api_helper: %s[%zu][%zu] is %g, expected %g\n", Name, I, J, *E, value2d(I, J));
        return 1;
      }
    }
  if (iopoly_free(P) != 0)
    return die("iopoly_free");
  printf("%s %zu elements\n", strcmp(What, "check") ? "wrote" : "checked", Rows * Cols);
  return 0;
}

/* plain2d NAME ROWS COLS: what a program that knows no layout does (a
 * module compiled without the layout pass, or by another compiler): a new
 * iopoly_alloc array whose ROWSxCOLS doubles it writes in the order of the
 * C array, its header left a byte view. */
static int cmdPlain2d(const char *Name, size_t Rows, size_t Cols) {
  double *P = iopoly_alloc_flags(Name, Rows * Cols * sizeof(double), IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!P)
    return expected("iopoly_alloc");
  for (size_t I = 0; I < Rows; ++I)
    for (size_t J = 0; J < Cols; ++J)
      P[I * Cols + J] = value2d(I, J);
  if (iopoly_free(P) != 0)
    return die("iopoly_free");
  printf("wrote %zu elements\n", Rows * Cols);
  return 0;
}

/* alloc-elems NAME COUNT ELEM trunc|keep|check: iopoly_alloc_elems, then
 * (trunc, keep) writes a byte pattern or (check) checks it. */
static int cmdAllocElems(const char *Name, size_t Count, size_t Elem, const char *What) {
  unsigned char *P = iopoly_alloc_elems(Name, Count, Elem, !strcmp(What, "trunc") ? IOPOLY_CREATE | IOPOLY_TRUNC
                                                                                 : IOPOLY_CREATE);
  if (!P)
    return expected("iopoly_alloc_elems");
  for (size_t I = 0; I < Count * Elem; ++I) {
    unsigned char V = (unsigned char)(I * 7 + 1);
    if (strcmp(What, "check"))
      P[I] = V;
    else if (P[I] != V) {
      fprintf(stderr, "api_helper: %s byte %zu is %u, expected %u\n", Name, I, P[I], V);
      return 1;
    }
  }
  if (iopoly_free(P) != 0)
    return die("iopoly_free");
  printf("%s %zu elements\n", strcmp(What, "check") ? "wrote" : "checked", Count);
  return 0;
}

static int cmdOutOfRange(const char *Name, size_t Rows, size_t Cols) {
  iopoly_array *A = openShape(Name, Rows, Cols, IOPOLY_CREATE);
  if (!A)
    return die("open");
  size_t N = iopoly_num_blocks(A);
  if (iopoly_attach(A, N, IOPOLY_READ))
    return die("attach past the end succeeded");
  printf("error: %s\n", iopoly_last_error());
  if (iopoly_release(A, N + 5) != -1)
    return die("release past the end succeeded");
  printf("error: %s\n", iopoly_last_error());
  if (iopoly_prefetch(A, (size_t)-1) != -1)
    return die("prefetch past the end succeeded");
  printf("error: %s\n", iopoly_last_error());
  /* The array is still usable. */
  if (!iopoly_attach(A, N - 1, IOPOLY_READ) || iopoly_release(A, N - 1) != 0 || iopoly_close(A) != 0)
    return die("use after the errors");
  return 3;
}

static int cmdReleaseUnattached(const char *Name, size_t Rows, size_t Cols) {
  iopoly_array *A = openShape(Name, Rows, Cols, IOPOLY_CREATE);
  if (!A)
    return die("open");
  if (iopoly_release(A, 1) != -1)
    return die("release of a never attached block succeeded");
  printf("error: %s\n", iopoly_last_error());
  if (!iopoly_attach(A, 1, IOPOLY_READ) || iopoly_release(A, 1) != 0)
    return die("attach/release");
  if (iopoly_release(A, 1) != -1)
    return die("second release succeeded");
  printf("error: %s\n", iopoly_last_error());
  return iopoly_close(A) == 0 ? 3 : die("close");
}

static int cmdDoubleClose(const char *Name, size_t Rows, size_t Cols) {
  iopoly_array *A = openShape(Name, Rows, Cols, IOPOLY_CREATE);
  if (!A)
    return die("open");
  if (iopoly_close(A) != 0)
    return die("first close");
  if (iopoly_close(A) != -1)
    return die("second close succeeded");
  printf("error: %s\n", iopoly_last_error());
  if (iopoly_close(NULL) != -1)
    return die("close(NULL) succeeded");
  printf("error: %s\n", iopoly_last_error());
  return 3;
}

static int cmdWriteReadonly(const char *Name, size_t Rows, size_t Cols) {
  iopoly_array *A = openShape(Name, Rows, Cols, IOPOLY_CREATE);
  if (!A || iopoly_close(A) != 0)
    return die("create");
  A = openShape(Name, Rows, Cols, IOPOLY_RDONLY);
  if (!A)
    return die("open read-only");
  if (iopoly_attach(A, 0, IOPOLY_WRITE))
    return die("write attach on a read-only array succeeded");
  printf("error: %s\n", iopoly_last_error());
  if (iopoly_attach(A, 0, IOPOLY_READ | IOPOLY_WRITE | IOPOLY_OVERWRITE))
    return die("overwrite attach on a read-only array succeeded");
  printf("error: %s\n", iopoly_last_error());
  if (!iopoly_attach(A, 0, IOPOLY_READ) || iopoly_release(A, 0) != 0 || iopoly_close(A) != 0)
    return die("read attach");
  return 3;
}

static int cmdOverfill(const char *Name, size_t Rows, size_t Cols) {
  iopoly_array *A = openShape(Name, Rows, Cols, IOPOLY_CREATE);
  if (!A)
    return die("open");
  size_t Frames = iopoly_buffer_blocks();
  if (iopoly_num_blocks(A) <= Frames)
    return die("the array must have more blocks than the buffer");
  for (size_t B = 0; B < Frames; ++B)
    if (!iopoly_attach(A, B, IOPOLY_READ | IOPOLY_WRITE))
      return die("attach within the buffer");
  if (iopoly_attach(A, Frames, IOPOLY_READ))
    return die("attach beyond the buffer succeeded");
  printf("error: %s\n", iopoly_last_error());
  if (iopoly_prefetch(A, Frames) != 1)
    return die("prefetch into a full buffer was not dropped");
  if (iopoly_close(A) != -1)
    return die("close with attached blocks succeeded");
  printf("error: %s\n", iopoly_last_error());
  /* One release makes room again: no deadlock, no eviction of a pin. */
  if (iopoly_release(A, 0) != 0 || !iopoly_attach(A, Frames, IOPOLY_READ))
    return die("attach after a release");
  for (size_t B = 1; B <= Frames; ++B)
    if (iopoly_release(A, B) != 0)
      return die("release");
  return iopoly_close(A) == 0 ? 3 : die("close");
}

/* Known counters: 16 blocks (3 disks, 8 frames); create and close (no
 * stripe I/O), read all 16 (16 fetches, 8 evictions), read the last 8 again
 * (8 hits), close; reopen, write block 0 (1 fetch, 1 write-back at close). */
static int cmdStats(const char *Name) {
  size_t Dims[2] = {128, 64};
  iopoly_array *A = iopoly_open(Name, ELEM, 2, Dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!A || iopoly_close(A) != 0)
    return die("create");
  A = iopoly_open(Name, ELEM, 2, Dims, IOPOLY_RDONLY);
  if (!A)
    return die("open");
  for (size_t B = 0; B < 16; ++B)
    if (!iopoly_attach(A, B, IOPOLY_READ) || iopoly_release(A, B) != 0)
      return die("read");
  for (size_t B = 8; B < 16; ++B)
    if (!iopoly_attach(A, B, IOPOLY_READ) || iopoly_release(A, B) != 0)
      return die("reread");
  if (iopoly_close(A) != 0)
    return die("close");
  A = iopoly_open(Name, ELEM, 2, Dims, IOPOLY_RDWR);
  unsigned char *P = A ? iopoly_attach(A, 0, IOPOLY_WRITE) : NULL;
  if (!P)
    return die("write attach");
  P[0] = 1;
  if (iopoly_release(A, 0) != 0 || iopoly_close(A) != 0)
    return die("close after writing");
  iopoly_counters C;
  iopoly_get_counters(&C);
  printf("counters %llu %llu %llu %llu %llu %llu %llu\n", C.stripe_fetches, C.distinct_stripes, C.buffer_hits,
         C.evictions, C.writebacks, C.bytes_read, C.bytes_written);
  return 0;
}

/* A second process cannot open an array another process has open for
 * writing (their buffers would not be coherent); once it exits, it can. */
static int cmdLockConflict(const char *Name, size_t Rows, size_t Cols) {
  int ToChild[2], ToParent[2];
  if (pipe(ToChild) != 0 || pipe(ToParent) != 0)
    return die("pipe");
  pid_t Pid = fork();
  if (Pid < 0)
    return die("fork");
  if (Pid == 0) {
    iopoly_array *A = openShape(Name, Rows, Cols, IOPOLY_CREATE);
    char Go;
    if (write(ToParent[1], A ? "y" : "n", 1) != 1 || read(ToChild[0], &Go, 1) != 1)
      _exit(1);
    _exit(A && iopoly_close(A) == 0 ? 0 : 1);
  }
  char Ok = 'n';
  if (read(ToParent[0], &Ok, 1) != 1 || Ok != 'y')
    return die("the first process could not open the array");
  if (openShape(Name, Rows, Cols, IOPOLY_RDWR))
    return die("a second writer opened an array another process writes");
  printf("error: %s\n", iopoly_last_error());
  if (openShape(Name, Rows, Cols, IOPOLY_RDONLY))
    return die("a reader opened an array another process writes");
  int Status = 0;
  if (write(ToChild[1], "x", 1) != 1 || waitpid(Pid, &Status, 0) != Pid || !WIFEXITED(Status) ||
      WEXITSTATUS(Status) != 0)
    return die("the first process failed");
  iopoly_array *B = openShape(Name, Rows, Cols, IOPOLY_RDWR);
  if (!B)
    return die("open after the first process exited");
  return iopoly_close(B) == 0 ? 3 : die("close");
}

static int cmdAllocTouch(const char *Name, size_t Bytes, size_t Offset) {
  volatile unsigned char *P = iopoly_alloc(Name, Bytes);
  if (!P)
    return die("iopoly_alloc");
  iopoly_array *A = iopoly_array_of((const void *)(P + Bytes - 1));
  if (!A || strcmp(iopoly_array_name(A), Name) != 0 || iopoly_array_base(A) != (void *)P)
    return die("iopoly_array_of does not find the array");
  int Local = 0;
  if (iopoly_array_of(&Local) || iopoly_array_of(&Bytes))
    return die("ordinary memory mapped to an array");
  if (iopoly_close(A) != -1)
    return die("iopoly_close of alloc memory succeeded");
  printf("error: %s\n", iopoly_last_error());
  fflush(stdout);
  P[Offset] = 1; /* must stop the program, naming the array */
  fprintf(stderr, "api_helper: the direct access did not stop the program\n");
  return 1;
}

/* More commands, in files of their own (one concern each). */
int hostileMain(int Argc, char **Argv, int *Rc);
int integrityMain(int Argc, char **Argv, int *Rc);

/* Plain C on disk-resident memory: this file is not compiled with the
 * plugin, so every access below reaches it through page faults. */
static int cmpDesc(const void *A, const void *B) {
  uint32_t X = *(const uint32_t *)A, Y = *(const uint32_t *)B;
  return (X < Y) - (X > Y);
}

static int cmdAllocPlain(const char *Name, size_t Bytes, int UseFree) {
  unsigned char *P = iopoly_alloc(Name, Bytes);
  if (!P)
    return die("iopoly_alloc");
  for (size_t I = 0; I < Bytes; ++I) /* writes: faults on clean or absent stripes */
    P[I] = patternByte(I, 5);
  unsigned long long Sum = 0, Want = 0;
  for (size_t I = 0; I < Bytes; ++I) { /* reads, more data than the buffer */
    Sum += P[I];
    Want += patternByte(I, 5);
  }
  if (Sum != Want)
    return die("sum of the bytes written");
  unsigned char *Copy = malloc(Bytes);
  if (!Copy)
    return die("malloc");
  memcpy(Copy, P, Bytes); /* libc reads it */
  if (memcmp(Copy, P, Bytes) != 0)
    return die("memcmp after memcpy");
  /* libc writes it: sort the first quarter as 32-bit words, descending */
  size_t Words = Bytes / 4 / sizeof(uint32_t);
  qsort(P, Words, sizeof(uint32_t), cmpDesc);
  qsort(Copy, Words, sizeof(uint32_t), cmpDesc);
  if (memcmp(Copy, P, Bytes) != 0)
    return die("qsort on disk-resident memory differs from qsort on the heap");
  memset(P + Bytes / 2, 0x5a, Bytes / 4); /* libc fills it */
  memset(Copy + Bytes / 2, 0x5a, Bytes / 4);
  if (memcmp(Copy, P, Bytes) != 0)
    return die("memset");
  if (UseFree)
    free(P); /* libiopoly's free: written back, files kept */
  else if (iopoly_free(P) != 0)
    return die("iopoly_free");
  size_t Dims[1] = {Bytes};
  iopoly_array *A = iopoly_open(Name, 1, 1, Dims, IOPOLY_RDONLY);
  if (!A)
    return die("reopen");
  size_t S = iopoly_block_size();
  for (size_t B = 0; B * S < Bytes; ++B) {
    const unsigned char *Blk = iopoly_attach(A, B, IOPOLY_READ);
    size_t N = Bytes - B * S < S ? Bytes - B * S : S;
    if (!Blk || memcmp(Blk, Copy + B * S, N) != 0) {
      fprintf(stderr, "api_helper: block %zu on disk differs\n", B);
      return 1;
    }
    iopoly_release(A, B);
  }
  iopoly_close(A);
  free(Copy);
  printf("plain ok\n");
  return 0;
}

struct ThreadPart {
  unsigned char *P;
  size_t From, To;
  int Ok;
};

static void *threadPart(void *Arg) {
  struct ThreadPart *T = Arg;
  for (int Round = 0; Round < 3; ++Round) {
    for (size_t I = T->From; I < T->To; ++I)
      T->P[I] = patternByte(I, (unsigned)Round);
    for (size_t I = T->From; I < T->To; ++I)
      if (T->P[I] != patternByte(I, (unsigned)Round))
        return NULL;
  }
  T->Ok = 1;
  return NULL;
}

static int cmdAllocThreads(const char *Name, size_t Bytes, size_t Threads) {
  unsigned char *P = iopoly_alloc(Name, Bytes);
  if (!P || Threads < 1 || Threads > 16)
    return die("iopoly_alloc");
  pthread_t Id[16];
  struct ThreadPart Part[16];
  for (size_t K = 0; K < Threads; ++K) {
    /* Interleaved parts that share stripes at their edges. */
    Part[K] = (struct ThreadPart){P, Bytes * K / Threads, Bytes * (K + 1) / Threads, 0};
    pthread_create(&Id[K], NULL, threadPart, &Part[K]);
  }
  int Ok = 1;
  for (size_t K = 0; K < Threads; ++K) {
    pthread_join(Id[K], NULL);
    Ok &= Part[K].Ok;
  }
  if (!Ok)
    return die("a thread read back something else than it wrote");
  for (size_t I = 0; I < Bytes; ++I)
    if (P[I] != patternByte(I, 2))
      return die("final contents");
  if (iopoly_free(P) != 0)
    return die("iopoly_free");
  printf("threads ok\n");
  return 0;
}

static int cmdAllocBad(const char *Name, size_t Bytes, const char *What) {
  volatile unsigned char *P = iopoly_alloc(Name, Bytes);
  if (!P)
    return die("iopoly_alloc");
  P[0] = 1;
  printf("allocated\n");
  fflush(stdout);
  if (!strcmp(What, "before"))
    printf("%d\n", P[-1]); /* A[-1]: the guard gap before the array */
  else if (!strcmp(What, "after"))
    printf("%d\n", P[Bytes + 4096]);
  else if (!strcmp(What, "freed")) {
    iopoly_free((void *)P);
    printf("%d\n", P[0]);
  } else if (!strcmp(What, "free-inner"))
    free((void *)(P + 8));
  else if (!strcmp(What, "realloc-grow"))
    (void)!realloc((void *)P, 2 * Bytes);
  else
    return die("unknown case");
  fprintf(stderr, "api_helper: the bad access did not stop the program\n");
  return 1;
}

static int cmdAllocRealloc(const char *Name, size_t Bytes) {
  unsigned char *P = iopoly_alloc(Name, Bytes);
  if (!P)
    return die("iopoly_alloc");
  P[Bytes - 1] = 7;
  if (realloc(P, Bytes / 2) != P || realloc(P, Bytes) != P)
    return die("a realloc that does not grow must keep the pointer");
  if (P[Bytes - 1] != 7)
    return die("contents after realloc");
  if (realloc(P, 0) != NULL)
    return die("realloc(p, 0) frees");
  if (iopoly_array_of(P))
    return die("the array is still there after realloc(p, 0)");
  unsigned char *Q = iopoly_alloc(Name, Bytes); /* the name is free again */
  if (!Q)
    return die("iopoly_alloc after realloc(p, 0)");
  free(Q);
  printf("realloc ok\n");
  return 0;
}

int main(int Argc, char **Argv) {
  if (Argc < 3) {
    fprintf(stderr, "usage: api_helper COMMAND NAME ...\n");
    return 2;
  }
  int Rc = 0;
  if (hostileMain(Argc, Argv, &Rc) || integrityMain(Argc, Argv, &Rc))
    return Rc;
  const char *Cmd = Argv[1];
  char **A = Argv + 1; /* A[1] is the array name */
  if (!strcmp(Cmd, "write") && Argc == 7)
    return cmdWrite(A[1], arg(A[2]), arg(A[3]), (unsigned)arg(A[4]), !strcmp(A[5], "close"));
  if (!strcmp(Cmd, "verify") && Argc == 6)
    return cmdVerify(A[1], arg(A[2]), arg(A[3]), (unsigned)arg(A[4]));
  if (!strcmp(Cmd, "open") && Argc == 8)
    return cmdOpen(A);
  if ((!strcmp(Cmd, "fill2d") || !strcmp(Cmd, "check2d")) && Argc == 6)
    return cmdElements2d(A[1], arg(A[2]), arg(A[3]), A[4], !strcmp(Cmd, "fill2d"));
  if (!strcmp(Cmd, "alloc-elems") && Argc == 6)
    return cmdAllocElems(A[1], arg(A[2]), arg(A[3]), A[4]);
  if (!strcmp(Cmd, "alloc2d") && Argc == 7)
    return cmdAlloc2d(A[1], arg(A[2]), arg(A[3]), A[4], A[5]);
  if (!strcmp(Cmd, "out-of-range") && Argc == 5)
    return cmdOutOfRange(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "release-unattached") && Argc == 5)
    return cmdReleaseUnattached(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "double-close") && Argc == 5)
    return cmdDoubleClose(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "write-readonly") && Argc == 5)
    return cmdWriteReadonly(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "overfill") && Argc == 5)
    return cmdOverfill(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "stats") && Argc == 3)
    return cmdStats(A[1]);
  if (!strcmp(Cmd, "lock-conflict") && Argc == 5)
    return cmdLockConflict(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "alloc-touch") && Argc == 5)
    return cmdAllocTouch(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "plain2d") && Argc == 5)
    return cmdPlain2d(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "alloc-plain") && Argc == 5)
    return cmdAllocPlain(A[1], arg(A[2]), !strcmp(A[3], "free"));
  if (!strcmp(Cmd, "alloc-threads") && Argc == 5)
    return cmdAllocThreads(A[1], arg(A[2]), arg(A[3]));
  if (!strcmp(Cmd, "alloc-bad") && Argc == 5)
    return cmdAllocBad(A[1], arg(A[2]), A[3]);
  if (!strcmp(Cmd, "alloc-realloc") && Argc == 4)
    return cmdAllocRealloc(A[1], arg(A[2]));
  fprintf(stderr, "api_helper: bad command line for '%s'\n", Cmd);
  return 2;
}
