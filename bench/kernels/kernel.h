/*===- kernel.h - Shared helpers of the benchmark kernels -------------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Each kernel prints "checksum <hex>" over the bytes of its result arrays
 * (read element by element, so the reads go through the same lowered code
 * as the kernel) and, when run as "<kernel> size", the bytes of its
 * disk-resident data, which scripts use to size the buffer.
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_BENCH_KERNEL_H
#define IOPOLY_BENCH_KERNEL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t checksum_state = 1469598103934665603ULL;

/* FNV-1a over \p n bytes at \p p. Not inlined: inlined, its byte loop over
 * the result arrays would join the kernel's last loop nest in one Polly
 * SCoP, and with byte and double accesses to the same array Polly's
 * in-bounds and no-alias assumptions come out infeasible and it dismisses
 * the whole SCoP (clo, dro-l and dro-wp would then leave every nest
 * in its original order). */
__attribute__((noinline)) static void checksum_add(const void *p, size_t n) {
  const unsigned char *c = (const unsigned char *)p;
  uint64_t h = checksum_state;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ c[i]) * 1099511628211ULL;
  checksum_state = h;
}

#define CHECKSUM(a) checksum_add((a), sizeof(a))

static void checksum_print(void) { printf("checksum %016llx\n", (unsigned long long)checksum_state); }

/* Handles "<kernel> size": prints the disk-resident bytes and exits. */
#define KERNEL_MAIN_PROLOGUE(bytes)                                                                                  \
  if (argc > 1 && !strcmp(argv[1], "size")) {                                                                          \
    printf("%llu\n", (unsigned long long)(bytes));                                                                     \
    return 0;                                                                                                          \
  }

#endif
