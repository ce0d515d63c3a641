// cxx_names.cpp - C++ as users write it (issue 9, section 3): a qualified
// name in the pragma, the pragma inside a namespace, a static data member,
// an array in an anonymous namespace; a template and a lambda over them.
#include <cstdio>
#include <cstring>

extern "C" {
#include "emit.h"
}

namespace grid {
double B[64][48];
namespace inner {
float W[1000];
#pragma iopoly disk_resident(W) // inside a namespace: inner::W
} // namespace inner
} // namespace grid
#pragma iopoly disk_resident(grid::B)

struct Field {
  static double Values[50][40];
};
double Field::Values[50][40];
#pragma iopoly disk_resident(Field::Values)

namespace {
long Counts[3000];
}
#pragma iopoly disk_resident(Counts)

template <typename T, int R, int C> T sum(T (&a)[R][C]) {
  T s = 0;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j)
      s += a[i][j];
  return s;
}

int main() {
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 48; ++j)
      grid::B[i][j] = i * 0.5 + j;
  for (int i = 0; i < 1000; ++i)
    grid::inner::W[i] = i * 0.25f;
  auto fill = [](int k) {
    for (int i = 0; i < 50; ++i)
      for (int j = 0; j < 40; ++j)
        Field::Values[i][j] = k * i - j;
  };
  fill(3);
  for (int i = 0; i < 3000; ++i)
    Counts[i] = (long)i * i % 977;
  static double out[4];
  out[0] = sum(grid::B);
  out[1] = sum(Field::Values);
  for (int i = 0; i < 1000; ++i)
    out[2] += grid::inner::W[i];
  for (int i = 0; i < 3000; ++i)
    out[3] += Counts[i];
  EMIT(out);
  return 0;
}
