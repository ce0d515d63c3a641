/* alloc_other.c - an allocator in another file (issue 9: cholesky, lu and
 * ludcmp allocated a local temporary through polybench_alloc_data and wrote
 * it through a local pointer the plugin did not follow). Built without the
 * plugin; the reference build (-DIOPOLY_REFERENCE) allocates with malloc. */
#include <stdio.h>
#include <stdlib.h>
#ifndef IOPOLY_REFERENCE
#include "iopoly.h"
#endif

void *other_alloc(size_t bytes) {
  static int count = 0;
#ifdef IOPOLY_REFERENCE
  (void)count;
  return malloc(bytes);
#else
  char name[32];
  snprintf(name, sizeof name, "other%d", count++);
  void *p = iopoly_alloc_flags(name, bytes, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!p) {
    fprintf(stderr, "alloc_other: %s\n", iopoly_last_error());
    exit(3);
  }
  return p;
#endif
}

void other_free(void *p) { free(p); }
