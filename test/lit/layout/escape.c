// An array whose address leaves the accesses the pass follows keeps
// row-major, and the remark says why: passed to a function compiled
// without the choice (it would index it row-major), or stored. Asking for
// a layout then is an error.
// RUN: %clang_iopoly -O2 -c -Rpass-missed=iopoly %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %clang_iopoly -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: not %clang_iopoly -O2 -c -DFORCE %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORCE
// CHECK-DAG: remark: file layout of 'V': kept row-major because its address is passed to function 'consume', which is compiled without the layout choice
// CHECK-DAG: remark: file layout of 'W': kept row-major because its address is stored to memory
// IR-NOT: iopoly.layout
// FORCE: error: iopoly: cannot store 'V' in layout 1,0 (column-major) as #pragma iopoly layout asks: its address is passed to function 'consume'
#define N 256
double V[N][N], W[N][N], S[N];
double (*Saved)[N];
#pragma iopoly disk_resident(V, W, S)
#ifdef FORCE
#pragma iopoly layout(V, 1, 0)
#endif
void consume(double (*)[N]);

void f(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      S[i] += V[j][i] + W[j][i];
  consume(V);
  Saved = W;
}
