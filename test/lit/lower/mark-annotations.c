// A function-scope pragma reaches the IR as llvm.var.annotation on the
// variable's slot; iopoly-mark wraps each load of that slot in the marker,
// and the lowering then serves the accesses through windows (at -O0 too,
// where the pointer lives in a stack slot).
// RUN: %clang_iopoly -O0 -fno-discard-value-names -S -emit-llvm -Xclang -disable-llvm-passes %s -o %t.ll
// RUN: FileCheck %s --check-prefix=ANNOT < %t.ll
// RUN: %opt_iopoly -passes=iopoly-mark -S %t.ll | FileCheck %s --check-prefix=MARK
// RUN: %clang_iopoly -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=LOWER

// ANNOT: c"iopoly.disk_resident:v\00"
// ANNOT: call void @llvm.var.annotation.p0.p0(ptr %v.addr, ptr @.str
// MARK-NOT: llvm.var.annotation.p0.p0(ptr %v.addr
// MARK: %[[L:.*]] = load ptr, ptr %v.addr
// MARK-NEXT: %[[M:.*]] = call ptr @__iopoly_mark(ptr %[[L]]), !iopoly.disk_resident ![[NAME:[0-9]+]]
// MARK: getelementptr inbounds double, ptr %[[M]]
// MARK: ![[NAME]] = !{!"v"}
// LOWER-LABEL: define {{.*}}void @sum_into(
// LOWER-NOT: @__iopoly_mark
// LOWER: call ptr @__iopoly_translate
// LOWER: call void @__iopoly_window_release
void sum_into(double *v, const double *w, int n) {
#pragma iopoly disk_resident(v)
  for (int i = 0; i < n; ++i)
    v[i] += w[i];
}
