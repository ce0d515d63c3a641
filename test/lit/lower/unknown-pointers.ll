; Pointers the plugin cannot classify - a parameter, a pointer loaded from
; a struct, the result of a call to another file - may point to
; disk-resident memory (an allocator in another file, a pointer kept in a
; struct): their accesses get the window test. The stack, globals and
; malloc'd memory surely do not: their accesses stay as they are.
; RUN: %opt_iopoly -passes=iopoly-lower -iopoly-hoist=false -S %s | FileCheck %s

%struct.Holder = type { ptr, i64 }
@G = global [8 x double] zeroinitializer
declare ptr @malloc(i64)
declare ptr @get_buffer()

define double @param(ptr %p) {
; CHECK-LABEL: define double @param(
; CHECK: %iopoly.off = sub i64
; CHECK: call ptr @__iopoly_translate(ptr %iopoly.win{{[0-9]*}}, ptr %p, i64 8, i32 1
  %v = load double, ptr %p, align 8
  ret double %v
}

define double @from_struct(ptr %h, i64 %i) {
; CHECK-LABEL: define double @from_struct(
; The field load goes through %h (unknown), the element load through the
; pointer it returns (unknown too).
; CHECK: call ptr @__iopoly_translate({{.*}}, i64 8, i32 1
; CHECK: call ptr @__iopoly_translate({{.*}}, i64 8, i32 1
  %f = getelementptr inbounds %struct.Holder, ptr %h, i64 0, i32 0
  %data = load ptr, ptr %f, align 8
  %e = getelementptr inbounds double, ptr %data, i64 %i
  %v = load double, ptr %e, align 8
  ret double %v
}

define void @call_result(double %x) {
; CHECK-LABEL: define void @call_result(
; CHECK: call ptr @__iopoly_translate({{.*}}, i64 8, i32 2
; CHECK: call void @__iopoly_commit()
  %p = call ptr @get_buffer()
  store double %x, ptr %p, align 8
  ret void
}

define double @ordinary(i64 %i) {
; CHECK-LABEL: define double @ordinary(
; CHECK-NOT: __iopoly
; CHECK: ret double
  %a = alloca [4 x double], align 8
  %m = call ptr @malloc(i64 64)
  %pa = getelementptr inbounds [4 x double], ptr %a, i64 0, i64 %i
  store double 1.0, ptr %pa, align 8
  %pm = getelementptr inbounds double, ptr %m, i64 %i
  store double 2.0, ptr %pm, align 8
  %pg = getelementptr inbounds [8 x double], ptr @G, i64 0, i64 %i
  %v1 = load double, ptr %pa, align 8
  %v2 = load double, ptr %pm, align 8
  %v3 = load double, ptr %pg, align 8
  %s = fadd double %v1, %v2
  %t = fadd double %s, %v3
  ret double %t
}
