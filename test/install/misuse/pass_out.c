/*===- pass_out.c - Hands disk-resident memory to code without the plugin --===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Compiled with the plugin. "pass_out WHAT": WHAT names the memory, A (a
 * disk-resident global) or B (from iopoly_alloc), and whom it goes to:
 *   plainA, plainB   plain_sum (plain_sum.c, built without the plugin)
 *   qsortA, qsortB   libc's qsort
 *   fwriteA          libc's fwrite, 32 KB at once: more than stdio
 *                    buffers, so glibc hands A to the write system call,
 *                    which libiopoly wraps; "works" means the file holds
 *                    A's bytes ("fwrite ok")
 *   inside           nothing leaves compiled code: prints the sums (the
 *                    control: the program itself works)
 * Each prints what the same program prints on ordinary memory (mode=off):
 * code without the plugin reaches disk-resident memory through the
 * runtime's page-fault service (test/install/misuse.sh).
 *===----------------------------------------------------------------------===*/
#include <iopoly.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
double A[N];
#pragma iopoly disk_resident(A)
double plain_sum(const double *p, int n);

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "inside";
  double *B = iopoly_alloc("B", N * sizeof(double));
  if (!B) {
    fprintf(stderr, "pass_out: %s\n", iopoly_last_error());
    return 3;
  }
#pragma iopoly disk_resident(B)
  for (int i = 0; i < N; ++i) {
    A[i] = N - i;
    B[i] = i * 0.5;
  }
  if (!strcmp(what, "plainA"))
    printf("plain_sum(A) = %g\n", plain_sum(A, N));
  else if (!strcmp(what, "plainB"))
    printf("plain_sum(B) = %g\n", plain_sum(B, N));
  else if (!strcmp(what, "qsortA"))
    qsort(A, N, sizeof(double), cmp);
  else if (!strcmp(what, "qsortB"))
    qsort(B, N, sizeof(double), cmp);
  else if (!strcmp(what, "fwriteA")) {
    static double back[N];
    FILE *f = tmpfile();
    size_t k = f ? fwrite(A, 1, sizeof A, f) : 0;
    int same = f && fflush(f) == 0 && fseek(f, 0, SEEK_SET) == 0 && fread(back, 1, sizeof back, f) == sizeof back;
    for (int i = 0; same && i < N; ++i)
      same = back[i] == A[i];
    if (same)
      printf("fwrite ok\n");
    else
      printf("fwrite wrote %zu of %zu bytes, file %s A\n", k, sizeof A, same ? "equals" : "differs from");
  }
  double sa = 0, sb = 0;
  for (int i = 0; i < N; ++i) {
    sa += A[i];
    sb += B[i];
  }
  printf("inside: %g %g\n", sa, sb);
  iopoly_free(B);
  return 0;
}
