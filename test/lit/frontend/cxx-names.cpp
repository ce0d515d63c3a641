// C++ names in '#pragma iopoly disk_resident': qualified names, the pragma
// inside a namespace or a class, static data members, anonymous and inline
// namespaces, templates and lambdas; what is not an array global is an
// error naming it. The IR marks each global with its array name (scopes
// joined by dots) and its shape as declared.
// RUN: %clang_iopoly -x c++ -fsyntax-only -Xclang -verify %s
// RUN: %clang_iopoly -x c++ -O1 -S -emit-llvm -DNO_ERRORS %s -o - | FileCheck %s

namespace grid {
double B[64][48];
namespace inner {
float W[1000];
#pragma iopoly disk_resident(W)
} // namespace inner
inline namespace v2 {
int Flags[10][20][30];
}
} // namespace grid
#pragma iopoly disk_resident(grid::B, grid::Flags)

struct Field {
  static double Values[50][40];
#pragma iopoly disk_resident(Values)
};
double Field::Values[50][40];

namespace {
long Counts[3000];
}
#pragma iopoly disk_resident(Counts, ::grid::inner::W)

template <typename T> T first(T *p) {
#pragma iopoly disk_resident(p)
  auto get = [](T *q, int k) {
#pragma iopoly disk_resident(q)
    return q[k];
  };
  return get(p, 0);
}

int use(int k) {
  Counts[k] = k;
  return (int)(first(&grid::B[0][0]) + Counts[2] + Field::Values[1][1] + grid::inner::W[3] + grid::Flags[k][1][2]);
}

#ifndef NO_ERRORS
namespace other {
int Scalar;
}
#pragma iopoly disk_resident(other::Missing)   // expected-error {{unknown global array 'other::Missing'}}
#pragma iopoly disk_resident(nowhere::A)       // expected-error {{unknown global array 'nowhere::A'}}
#pragma iopoly disk_resident(other::Scalar)    // expected-error {{'other::Scalar' has type 'int'; a file-scope '#pragma iopoly disk_resident' needs a global array}}
#pragma iopoly disk_resident(grid::B::x)       // expected-error {{'B' in 'grid::B::x' is not a namespace or class}}
#pragma iopoly disk_resident(grid::)           // expected-error {{expected the name of an array or pointer}}
void f(double *p) {
#pragma iopoly disk_resident(grid::B)          // expected-error {{names its parameters or local pointers, which are not qualified}}
}
#endif

// CHECK-DAG: !{!"grid.B", i64 8, i64 64, i64 48}
// CHECK-DAG: !{!"grid.inner.W", i64 4, i64 1000}
// CHECK-DAG: !{!"grid.Flags", i64 4, i64 10, i64 20, i64 30}
// CHECK-DAG: !{!"Field.Values", i64 8, i64 50, i64 40}
// CHECK-DAG: !{!"Counts", i64 8, i64 3000}
