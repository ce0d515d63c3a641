// Arrays shared between programs: a program compiled with layout=static
// writes V (stored column-major: it walks V[j][i]); the header records the
// declared dims and the layout. A reader that asks for row-major is refused
// with both layouts and the command that converts the files; a reader that
// opens it in the file's layout reads every element right; after
// iopoly-relayout V --to 0,1 the row-major reader does too.
// Under the sanitizers the writer's V is not permuted (README, limitations).
// UNSUPPORTED: sanitize
// RUN: rm -rf %t.data
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 %s -o %t.writer
// RUN: %iopoly_clang -O2 -DREADER %s -o %t.reader
// RUN: %iopoly_run %t.writer
// RUN: head -c 200 %t.data/disk0/V.iop | FileCheck %s --check-prefix=HEADER
// RUN: not %iopoly_run %t.reader rm 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: %iopoly_run %t.reader cm | FileCheck %s --check-prefix=OK
// RUN: %iopoly_run %iopoly_relayout V --to 0,1 | FileCheck %s --check-prefix=TOOL
// RUN: %iopoly_run %t.reader rm | FileCheck %s --check-prefix=OK
// The writer compiled with another choice (layout=off: V row-major), run
// after the static build's files: they are replaced with a warning that
// names both layouts (a global starts afresh every run); readers follow
// the header.
// RUN: %iopoly_run %t.writer
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -fplugin-arg-iopoly-layout=off %s -o %t.writer2
// RUN: %iopoly_run %t.writer2 2>&1 | FileCheck %s --check-prefix=REPLACED
// RUN: %iopoly_run %t.reader rm | FileCheck %s --check-prefix=OK
// RUN: not %iopoly_run %t.reader cm 2>&1 | FileCheck %s --check-prefix=REFUSED2
//
// REPLACED: warning: disk-resident global 'V': the files of an earlier run have other settings ({{.*}}file layout: the file stores it in layout 1,0 (column-major), this program asks for layout 0,1 (row-major){{.*}}); they are replaced
// REFUSED2: this program asks for layout 1,0 (column-major); convert the files with 'iopoly-relayout V --to 1,0'
// HEADER: dims 300 200
// HEADER-NEXT: layout 1 0
// REFUSED: file layout: the file stores it in layout 1,0 (column-major), this program asks for layout 0,1 (row-major); convert the files with 'iopoly-relayout V --to 0,1'
// OK: read 60000 elements of V, all right
// TOOL: array 'V' (300x200 x 8 bytes): layout 1,0 (column-major) -> 0,1 (row-major)
#include <iopoly.h>
#include <stdio.h>
#include <string.h>
#define R 300
#define C 200

#ifndef READER
double V[R][C];
#pragma iopoly disk_resident(V)

int main(void) {
  for (int j = 0; j < C; ++j)
    for (int i = 0; i < R; ++i)
      V[i][j] = i * 1000.0 + j;
  return 0;
}
#else
int main(int argc, char **argv) {
  size_t dims[2] = {R, C};
  int cm[2] = {1, 0};
  iopoly_array *a =
      iopoly_open_layout("V", sizeof(double), 2, dims, argc > 1 && !strcmp(argv[1], "cm") ? cm : NULL, IOPOLY_RDONLY);
  if (!a) {
    fprintf(stderr, "%s\n", iopoly_last_error());
    return 1;
  }
  size_t s = iopoly_block_size();
  for (size_t i = 0; i < R; ++i)
    for (size_t j = 0; j < C; ++j) {
      size_t idx[2] = {i, j}, off = iopoly_offset(a, idx);
      const char *p = iopoly_attach(a, off / s, IOPOLY_READ);
      double v;
      memcpy(&v, p + off % s, sizeof v);
      iopoly_release(a, off / s);
      if (v != i * 1000.0 + j) {
        printf("V[%zu][%zu] = %g\n", i, j, v);
        return 1;
      }
    }
  printf("read %d elements of V, all right\n", R * C);
  return iopoly_close(a);
}
#endif
