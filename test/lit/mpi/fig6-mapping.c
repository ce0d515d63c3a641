// Paper 2, Fig. 6 on Fig. 7's hierarchy (4 clients, 2 I/O nodes, 1
// storage node). The loop over c runs the iteration chunks of Fig. 8: c
// reads A's data chunks 0, c, c+2, c+4 (and writes B's chunk c, a data
// chunk of its own, so that the loop is parallel). The tags come from isl;
// the clustering gives each I/O node the even or the odd chunks and each
// client a pair {c, c+2}, first the one of fewest data chunks (Figs. 9 and
// 17), so fewer data chunks reach the shared caches than with blocks.
// RUN: %clang_iopoly -O2 -c -fplugin-arg-iopoly-mpi=on -fplugin-arg-iopoly-map-chunk=4K \
// RUN:   -fplugin-arg-iopoly-topology=%S/Inputs/fig7.json -mllvm -iopoly-map-print -Rpass=iopoly %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s
// CHECK: iopoly mapping of loop {{.*}}fig6-mapping.c:[[@LINE+18]] (depth 0): 8 iterations, 8 iteration chunks over 20 data chunks of 4096 bytes ('A', 'B')
// CHECK-NEXT: chunk 0 tag {0,2,4,12} iterations [0,1)
// CHECK-NEXT: chunk 1 tag {0,1,3,5,13} iterations [1,2)
// CHECK-NEXT: chunk 2 tag {0,2,4,6,14} iterations [2,3)
// CHECK-NEXT: chunk 3 tag {0,3,5,7,15} iterations [3,4)
// CHECK-NEXT: chunk 4 tag {0,4,6,8,16} iterations [4,5)
// CHECK-NEXT: chunk 5 tag {0,5,7,9,17} iterations [5,6)
// CHECK-NEXT: chunk 6 tag {0,6,8,10,18} iterations [6,7)
// CHECK-NEXT: chunk 7 tag {0,7,9,11,19} iterations [7,8)
// CHECK-NEXT: rank 0: [0,1) [2,3)
// CHECK-NEXT: rank 1: [4,5) [6,7)
// CHECK-NEXT: rank 2: [1,2) [3,4)
// CHECK-NEXT: rank 3: [5,6) [7,8)
// CHECK: fig6-mapping.c:[[@LINE+5]]:3: remark: distributed this loop over the MPI ranks (the outermost loop of its nest, which carries no dependence), mapping cache with local scheduling: 8 iterations in 8 iteration chunks over 20 data chunks of 'A', 'B'; table compiled for 4 ranks: imbalance 0.0%, data chunks each cache level brings in 27/21/20 (block: 35/25/20); of 3 tree nodes, 1 cut by the clustering, 0 by block{{.}}s cut refined, 2 as block
#define D 512
double A[12 * D], B[8 * D];
#pragma iopoly disk_resident(A, B)
void fig6(void) {
  for (int c = 0; c < 8; ++c)
    for (int x = 0; x < D; ++x) {
      int i = c * D + x;
      B[i] = A[i] + A[x] + A[i + 4 * D] + A[i + 2 * D];
    }
}
