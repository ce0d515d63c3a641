/*===- api_hostile.c - Hostile inputs to the C API, run by api_helper -----===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Absurd sizes, NULL and out-of-range arguments and unknown flags: each
 * call must return an error (printed as "error: <message>") or succeed, and
 * never crash, throw or abort the process. Every command ends by printing
 * "maxrss <KiB>", so that tests can check that memory use follows what is
 * used and not the array's extent.
 *
 *   open-bytes NAME ELEM COUNT      1-D array of COUNT elements (CREATE|TRUNC),
 *                                   touch its first and last blocks
 *   alloc-bytes NAME BYTES          iopoly_alloc of BYTES
 *   offset-bad NAME                 iopoly_offset with NULL and out-of-range indices
 *   open-flags NAME FLAGS           iopoly_open with FLAGS (hex)
 *   small-rw NAME COUNT             write and read back COUNT doubles
 *   vec-io NAME                     readv / writev / preadv / pwritev between a
 *                                   file and iopoly_alloc memory (3 blocks)
 *===----------------------------------------------------------------------===*/
#include "iopoly.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

static void printRss(void) {
  struct rusage U;
  getrusage(RUSAGE_SELF, &U);
  printf("maxrss %ld\n", U.ru_maxrss);
}

static int err(const char *What) {
  const char *E = iopoly_last_error();
  printf("error: %s: %s\n", What, E && *E ? E : "(no message)");
  return 3;
}

static int touch(iopoly_array *A, size_t Block) {
  unsigned char *P = iopoly_attach(A, Block, IOPOLY_READ | IOPOLY_WRITE);
  if (!P)
    return err("attach");
  P[0] ^= 1;
  if (iopoly_release(A, Block) != 0)
    return err("release");
  return 0;
}

static int cmdOpenBytes(const char *Name, size_t Elem, size_t Count) {
  size_t Dims[1] = {Count};
  iopoly_array *A = iopoly_open(Name, Elem, 1, Dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  int Rc = 0;
  if (!A) {
    Rc = err("iopoly_open");
  } else {
    size_t N = iopoly_num_blocks(A);
    printf("opened blocks %zu bytes %zu\n", N, iopoly_array_bytes(A));
    if (N == 0)
      Rc = 1, fprintf(stderr, "api_hostile: an open array with 0 blocks\n");
    else if ((Rc = touch(A, 0)) == 0)
      Rc = touch(A, N - 1);
    if (iopoly_close(A) != 0 && Rc == 0)
      Rc = err("iopoly_close");
  }
  printRss();
  return Rc;
}

static int cmdAllocBytes(const char *Name, size_t Bytes) {
  void *P = iopoly_alloc(Name, Bytes);
  int Rc = 0;
  if (!P)
    Rc = err("iopoly_alloc");
  else {
    printf("allocated %zu bytes\n", Bytes);
    if (iopoly_free(P) != 0)
      Rc = err("iopoly_free");
  }
  printRss();
  return Rc;
}

static int cmdOffsetBad(const char *Name) {
  size_t Dims[2] = {10, 20};
  iopoly_array *A = iopoly_open(Name, 8, 2, Dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!A)
    return err("iopoly_open");
  size_t Good[2] = {9, 19}, Bad[2] = {3, 20};
  printf("offset %zu\n", iopoly_offset(A, Good));
  if (iopoly_offset(A, NULL) != (size_t)-1)
    return fprintf(stderr, "api_hostile: iopoly_offset(NULL) did not return (size_t)-1\n"), 1;
  err("iopoly_offset NULL");
  if (iopoly_offset(A, Bad) != (size_t)-1)
    return fprintf(stderr, "api_hostile: out-of-range iopoly_offset did not return (size_t)-1\n"), 1;
  err("iopoly_offset range");
  if (iopoly_offset(NULL, Good) != (size_t)-1)
    return fprintf(stderr, "api_hostile: iopoly_offset of a NULL array did not return (size_t)-1\n"), 1;
  err("iopoly_offset handle");
  if (iopoly_close(A) != 0)
    return err("iopoly_close");
  printRss();
  return 3;
}

static int cmdOpenFlags(const char *Name, int Flags) {
  size_t Dims[1] = {100};
  iopoly_array *A = iopoly_open(Name, 8, 1, Dims, Flags);
  if (!A)
    return err("iopoly_open");
  printf("opened\n");
  return iopoly_close(A) == 0 ? 0 : err("iopoly_close");
}

static int cmdSmallRw(const char *Name, size_t Count) {
  size_t Dims[1] = {Count};
  iopoly_array *A = iopoly_open(Name, sizeof(double), 1, Dims, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!A)
    return err("iopoly_open");
  size_t S = iopoly_block_size(), N = iopoly_num_blocks(A);
  for (int Pass = 0; Pass < 2; ++Pass)
    for (size_t B = 0; B < N; ++B) {
      double *P = iopoly_attach(A, B, Pass ? IOPOLY_READ : IOPOLY_WRITE | IOPOLY_OVERWRITE);
      if (!P)
        return err("attach");
      for (size_t I = 0; I < S / sizeof(double) && B * (S / sizeof(double)) + I < Count; ++I) {
        double Want = (double)(B * 1000 + I);
        if (Pass == 0)
          P[I] = Want;
        else if (P[I] != Want)
          return fprintf(stderr, "api_hostile: element %zu of block %zu is wrong\n", I, B), 1;
      }
      if (iopoly_release(A, B) != 0)
        return err("release");
    }
  if (iopoly_close(A) != 0)
    return err("iopoly_close");
  printf("ok %zu blocks\n", N);
  printRss();
  return 0;
}

/* Reads byte Off of iopoly_alloc memory through attach (the helper is not
 * compiled with the plugin, so it may not touch that memory directly). */
static int peek(iopoly_array *A, size_t Off) {
  size_t S = iopoly_block_size();
  const unsigned char *P = iopoly_attach(A, Off / S, IOPOLY_READ);
  int V = P ? P[Off % S] : -1;
  if (P)
    iopoly_release(A, Off / S);
  return V;
}

static int cmdVecIo(const char *Name) {
  size_t S = iopoly_block_size(), Bytes = 3 * S, N = S + S / 2, At = S / 2 + 7; /* spans two stripes */
  unsigned char *P = iopoly_alloc(Name, Bytes);
  if (!P)
    return err("iopoly_alloc");
  iopoly_array *A = iopoly_array_of(P);
  unsigned char *Src = malloc(N + 100), Head[100];
  for (size_t I = 0; I < N + 100; ++I)
    Src[I] = (unsigned char)(I * 7 + 3);
  int Fd = open("vec.in", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (Fd < 0 || write(Fd, Src, N + 100) != (ssize_t)(N + 100) || lseek(Fd, 0, SEEK_SET) != 0)
    return fprintf(stderr, "api_hostile: cannot write vec.in\n"), 1;
  struct iovec In[2] = {{Head, 100}, {P + At, N}};
  ssize_t R = readv(Fd, In, 2);
  if (R != (ssize_t)(N + 100))
    return err("readv");
  for (size_t I = 0; I < N; ++I)
    if (peek(A, At + I) != Src[100 + I])
      return fprintf(stderr, "api_hostile: readv put byte %zu wrong\n", I), 1;
  /* preadv at an offset into the same memory, shifted by one. */
  struct iovec In2[1] = {{P + At, N}};
  if (preadv(Fd, In2, 1, 101) != (ssize_t)(N - 1))
    return err("preadv");
  if (peek(A, At) != Src[101])
    return fprintf(stderr, "api_hostile: preadv put the first byte wrong\n"), 1;
  close(Fd);
  /* writev and pwritev out of it. */
  int Out = open("vec.out", O_RDWR | O_CREAT | O_TRUNC, 0644);
  struct iovec Wr[2] = {{Head, 100}, {P + At, N}};
  if (Out < 0 || writev(Out, Wr, 2) != (ssize_t)(N + 100))
    return err("writev");
  if (pwritev(Out, Wr + 1, 1, 5) != (ssize_t)N)
    return err("pwritev");
  unsigned char *Back = malloc(N + 100);
  if (pread(Out, Back, N + 100, 0) != (ssize_t)(N + 100))
    return fprintf(stderr, "api_hostile: cannot read vec.out\n"), 1;
  for (size_t I = 0; I < N; ++I)
    if (Back[5 + I] != (unsigned char)peek(A, At + I))
      return fprintf(stderr, "api_hostile: pwritev wrote byte %zu wrong\n", I), 1;
  close(Out);
  free(Src);
  free(Back);
  printf("vec ok\n");
  return iopoly_free(P) == 0 ? 0 : err("iopoly_free");
}

/* Returns 1 and sets *Rc when Argv names a command of this file. */
int hostileMain(int Argc, char **Argv, int *Rc) {
  const char *Cmd = Argv[1];
  if (!strcmp(Cmd, "open-bytes") && Argc == 5)
    *Rc = cmdOpenBytes(Argv[2], (size_t)strtoull(Argv[3], NULL, 0), (size_t)strtoull(Argv[4], NULL, 0));
  else if (!strcmp(Cmd, "alloc-bytes") && Argc == 4)
    *Rc = cmdAllocBytes(Argv[2], (size_t)strtoull(Argv[3], NULL, 0));
  else if (!strcmp(Cmd, "offset-bad") && Argc == 3)
    *Rc = cmdOffsetBad(Argv[2]);
  else if (!strcmp(Cmd, "open-flags") && Argc == 4)
    *Rc = cmdOpenFlags(Argv[2], (int)strtol(Argv[3], NULL, 16));
  else if (!strcmp(Cmd, "vec-io") && Argc == 3)
    *Rc = cmdVecIo(Argv[2]);
  else if (!strcmp(Cmd, "small-rw") && Argc == 4)
    *Rc = cmdSmallRw(Argv[2], (size_t)strtoull(Argv[3], NULL, 0));
  else
    return 0;
  return 1;
}
