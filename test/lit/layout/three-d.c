// A 3-D array has 6 candidate layouts. T[k][i][j] with k innermost, then j,
// then i prefers the file order i, j, k: layout 1,2,0. Two layouts end in
// dimension 0 (stride-1 in the file); the exact preference picks one.
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: file layout of 'T': 1,2,0, most accesses (weighted by how many times their statements run) are stride-1 in the file (statement instances along / against each layout: 0,1,2: 0 along, 11520 against; 0,2,1: 0 along, 11520 against; 1,0,2: 0 along, 11520 against; 1,2,0: 11520 along, 0 against; 2,0,1: 0 along, 11520 against; 2,1,0: 11520 along, 0 against; other: 0; weights: exact domain count (1 access))
double T[12][20][48];
#pragma iopoly disk_resident(T)

void fill(void) {
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 48; ++j)
      for (int k = 0; k < 12; ++k)
        T[k][i][j] = i + j + k;
}
