// Well-formed pragmas at file scope (before and after the declarations) and
// in function bodies produce no diagnostics.
// RUN: %clang_iopoly -fsyntax-only -Xclang -verify %s
// expected-no-diagnostics

#pragma iopoly disk_resident(Before)
double Before[16];
double After[4][4], Other[8];
#pragma iopoly disk_resident(After, Other)

struct S { double x; float y; };
struct S Records[100];
#pragma iopoly disk_resident( Records )

void kernel(int n, double m[n][n], double *v) {
#pragma iopoly disk_resident(m, v)
  for (int i = 0; i < n; ++i)
    v[i] = m[i][i];
}
