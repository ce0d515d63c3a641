// Under -fplugin-arg-iopoly-mpi=on an allocated array the ranks share keeps
// row-major, but the compiler still records its shape and element size in
// its file header (__iopoly_alloc_layout right after the allocation): the
// runtime then joins a rank's changed bytes within whole elements at sync
// points (one transfer per run of written doubles, not one per changed
// byte run). An array whose accesses the pass cannot follow gets nothing.
//
// UBSan's checks take the pointers' addresses as integers (the sanitizer
// builds compile programs with -fsanitize=undefined): every array escapes.
// UNSUPPORTED: sanitize
//
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-mpi=on -Rpass-missed=iopoly %s -o %t.ll 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=IR < %t.ll
#include <iopoly.h>
#define N 512

void escape(double *p);

static void kernel(int n, double (*A)[N]) {
#pragma iopoly disk_resident(A)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = i * 0.5 + j;
}

// REMARK: remark: file layout of 'A': kept row-major because arrays shared by MPI ranks keep row-major (the layout choice does not cover distributed programs); its shape (512x512 elements of 8 bytes) is recorded in its file header, so the runtime joins a rank's changed bytes within its elements
// REMARK: remark: file layout of 'E': kept row-major because
// REMARK-NOT: its shape
// IR: [[A:%[0-9a-z.]+]] = {{.*}}call ptr @iopoly_alloc(ptr noundef nonnull @.str,
// IR-NEXT: call void @__iopoly_alloc_layout(ptr [[A]], i64 8, i32 2,
// IR-NOT: call void @__iopoly_alloc_layout
double run(void) {
  double(*A)[N] = iopoly_alloc("A", sizeof(double) * N * N);
  double(*E)[N] = iopoly_alloc("E", sizeof(double) * N * N);
#pragma iopoly disk_resident(E)
  kernel(N, A);
  escape(&E[0][0]);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += A[i][i] + E[i][i];
  return s;
}
