// A loop inlined three times is strip-mined three times, and the remark
// says so once for its source line; counts are written with the right
// plural ("1 load").
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly %s -o /dev/null 2>%t.remarks
// RUN: FileCheck %s < %t.remarks
// RUN: grep -c "strip-mined loop" %t.remarks | FileCheck %s --check-prefix=ONCE
// CHECK-DAG: remarks-once.c:[[@LINE+8]]:{{[0-9]+}}: remark: strip-mined loop at stripe boundaries: {{[0-9]+}} accesses to 'A' in 1 stream are translated once per strip
// CHECK-DAG: remark: lowered 1 load, 0 stores and 0 memset/memcpys onto the stripe buffer (disk-resident 'A'); strip-mined 0 loops (0 accesses translated once per strip); 1 window in the frame
// ONCE: 1
#define N 4096
double A[N];
#pragma iopoly disk_resident(A)

static inline void scale(double f) {
  for (int i = 0; i < N; ++i)
    A[i] *= f;
}

void three(void) {
  scale(1.5);
  scale(2.5);
  scale(0.5);
}

double one(void) { return A[7]; }
