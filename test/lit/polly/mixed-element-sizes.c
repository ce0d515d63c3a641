// A memcpy into a two-dimensional float array, in the same loops as the
// array's own float accesses. Polly counts the rows of C in floats (109),
// then shrinks C's element to the memcpy's bytes without rescaling them:
// C becomes i8 [*][109] and the dependences are wrong (clang-19 -O2
// -mllvm -polly prints a different sum). Every Polly mode must leave such
// a SCoP in its original order and say why.
//
// With C and D disk-resident, the copy is expanded into float loops first
// (ExpandDiskCopiesPass), although D is also read as bytes: the SCoP is
// then modeled right and rescheduled.
//
// UBSan's pointer-overflow checks (the sanitizer builds compile programs
// with -fsanitize=undefined) are calls Polly cannot model: no SCoP to guard.
// UNSUPPORTED: sanitize
//
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %t.off > %t.off.out
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=clo -Rpass-missed=iopoly %s -o %t.clo 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: %t.clo > %t.clo.out
// RUN: cmp %t.off.out %t.clo.out
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -Rpass-missed=iopoly %s -o %t.wp 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: %t.wp > %t.wp.out
// RUN: cmp %t.off.out %t.wp.out
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-l -Rpass-missed=iopoly %s -o %t.l 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: %t.l > %t.l.out
// RUN: cmp %t.off.out %t.l.out
//
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_clang -O2 -DDISK -fplugin-arg-iopoly-mode=off %s -o %t.doff
// RUN: %iopoly_run %t.doff > %t.doff.out
// RUN: cmp %t.off.out %t.doff.out
// RUN: %iopoly_clang -O2 -DDISK -fplugin-arg-iopoly-mode=clo -Rpass=iopoly -Rpass-missed=iopoly %s -o %t.dclo 2>&1 | FileCheck %s --check-prefix=EXPANDED --implicit-check-not='left in its original order'
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K %t.dclo > %t.dclo.out
// RUN: cmp %t.off.out %t.dclo.out
//
// GUARD: mixed-element-sizes.c:[[@LINE+19]]:{{[0-9]+}}: remark: left in its original order: the multi-dimensional array 'C' is accessed here in elements of 4 bytes and elsewhere in these loops in elements of 1 byte (a memcpy or memset counts bytes)
// EXPANDED-DAG: mixed-element-sizes.c:[[@LINE+14]]:1: remark: lowered {{.*}} 0 memset/memcpys onto the stripe buffer
// EXPANDED-DAG: mixed-element-sizes.c:[[@LINE+15]]:5: remark: clo: Polly's isl scheduler applied a new schedule
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef DISK
#include <iopoly.h>
#endif

float C[128][109];
#ifdef DISK
#pragma iopoly disk_resident(C)
#endif

__attribute__((noinline)) static double kernel(float *D) {
  for (int i = 32; i >= 0; --i)
    for (int j = 2; j < 44; ++j)
      for (int k = 2; k < 47 - j; ++k)
        C[j - 2][i] = (float)(-0.35 * C[j + 1][i + 1] + 224.0 - 0.18 * D[i]);
  memcpy((char *)C + 50852, (char *)D + 14888, 4676);
  for (int i = 0; i < 100; ++i)
    for (int j = 0; j < 100; ++j)
      C[j + 1][i] += C[j][i + 1] * 0.5f;
  unsigned bytes = 0; // D read as bytes too: its accesses mix sizes
  for (int i = 0; i < 4096; ++i)
    bytes = bytes * 31u + ((const unsigned char *)D)[i];
  return bytes;
}

int main(void) {
#ifdef DISK
  float *D = iopoly_alloc_flags("D", sizeof(float[10128]), IOPOLY_CREATE | IOPOLY_TRUNC);
#else
  float *D = malloc(sizeof(float[10128]));
#endif
  for (int p = 0; p < 128; ++p)
    for (int q = 0; q < 109; ++q)
      C[p][q] = (float)((76 * p + 22 * q + 356) % 101);
  for (int i = 0; i < 10128; ++i)
    D[i] = (float)(i % 37);
  double bytes = kernel(D);
  double s = 0;
  for (int p = 0; p < 128; ++p)
    for (int q = 0; q < 109; ++q)
      s = s * 1.0000001 + C[p][q];
  printf("%.17g %.17g\n", s, bytes);
#ifndef DISK
  free(D);
#endif
  return 0;
}
