/*===- polybench_iopoly.c - PolyBench's arrays from iopoly_alloc -----------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * What a user does who replaces malloc with iopoly_alloc, without touching
 * the kernels: PolyBench allocates every array through
 * polybench_alloc_data (utilities/polybench.c), so this file provides it
 * (and polybench_free_data) for the lowered builds, while polybench.c is
 * compiled with its own two renamed away. Each array is a fresh
 * disk-resident array "pb0", "pb1", ...; POLYBENCH_FREE_ARRAY's free()
 * releases it (libiopoly's free). The kernel file gets no pragma: its
 * pointers come from another file and are checked at run time.
 *===----------------------------------------------------------------------===*/
#include <iopoly.h>
#include <stdio.h>
#include <stdlib.h>

void *polybench_alloc_data(unsigned long long int n, int elt_size) {
  static int count = 0;
  char name[32];
  snprintf(name, sizeof name, "pb%d", count++);
  void *p = iopoly_alloc_flags(name, (size_t)n * (size_t)elt_size, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!p) {
    fprintf(stderr, "polybench_iopoly: %s\n", iopoly_last_error());
    exit(1);
  }
  return p;
}

void polybench_free_data(void *ptr) { free(ptr); }
