// Malformed '#pragma iopoly' directives and names of the wrong kind are
// compile errors at the offending token.
// RUN: %clang_iopoly -fsyntax-only -Xclang -verify %s

double G[10][10];
int Scalar;
extern double Unsized[];
const double Ro[4] = {1, 2, 3, 4};

#pragma iopoly disk_resident(G)
#pragma iopoly resident(G)                  // expected-error {{unknown '#pragma iopoly' directive}}
#pragma iopoly disk_resident G              // expected-error {{expected '(' after '#pragma iopoly disk_resident'}}
#pragma iopoly disk_resident()              // expected-error {{expected the name of an array or pointer}}
#pragma iopoly disk_resident(G H)           // expected-error {{expected ',' or ')'}}
#pragma iopoly disk_resident(G) extra       // expected-error {{extra tokens at the end}}
#pragma iopoly disk_resident(Missing)       // expected-error {{unknown global array 'Missing'}}
#pragma iopoly disk_resident(Scalar)        // expected-error {{'Scalar' has type 'int'; a file-scope '#pragma iopoly disk_resident' needs a global array}}
#pragma iopoly disk_resident(Unsized)       // expected-error {{'Unsized' has no known size}}
#pragma iopoly disk_resident(Ro)            // expected-error {{'Ro' is const}}
#pragma iopoly                              // expected-error {{unknown '#pragma iopoly' directive}}

void f(int n, double *p, double a[n], int k) {
  double local[8];
  static double sl[8];
  double *q = p;
#pragma iopoly disk_resident(p, a, q)
#pragma iopoly disk_resident(k)             // expected-error {{'k' has type 'int'; '#pragma iopoly disk_resident' needs an array or pointer}}
#pragma iopoly disk_resident(local)         // expected-error {{'local' is a local array}}
#pragma iopoly disk_resident(sl)            // expected-error {{'sl' is a static local}}
#pragma iopoly disk_resident(later)         // expected-error {{'later' in '#pragma iopoly disk_resident' is not a parameter or local variable of 'f' declared before it}}
  double *later = p;
  (void)later; (void)local; (void)sl; (void)q; (void)a; (void)k;
}
