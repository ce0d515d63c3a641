; A disk-resident pointer passed to a function of the same module makes that
; parameter disk-resident too (accesses in @scale are lowered), and a pointer
; returned by a function is followed into its callers. A pointer stored to
; memory or passed to an external function is reported: accesses through
; the copies are checked at run time (pointers of unknown origin).
; RUN: %opt_iopoly -passes=iopoly-globals,iopoly-lower -iopoly-hoist=false -pass-remarks-analysis=iopoly -S %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

@A = global [64 x double] zeroinitializer, !iopoly.disk_resident !0
@Saved = global ptr null
!0 = !{!"A"}

declare void @external(ptr)

define internal void @scale(ptr %x, i64 %n) {
; CHECK-LABEL: define internal void @scale(
; CHECK: call ptr @__iopoly_translate(ptr %iopoly.win{{[0-9]*}}, ptr %p, i64 8, i32 1, ptr @iopoly.site
; CHECK: call ptr @__iopoly_translate(ptr %iopoly.win{{[0-9]*}}, ptr %p, i64 8, i32 2, ptr @iopoly.site
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %v2 = fmul double %v, 2.0
  store double %v2, ptr %p
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
  ret void
}

define internal ptr @id(ptr %q) {
  ret ptr %q
}

define double @main_like() {
; CHECK-LABEL: define double @main_like(
; CHECK: call ptr @__iopoly_translate
  call void @scale(ptr @A, i64 64)
  %r = call ptr @id(ptr @A)
  %e = getelementptr inbounds double, ptr %r, i64 3
  %v = load double, ptr %e
  store ptr @A, ptr @Saved
  call void @external(ptr @A)
  ret double %v
}

; REMARK-DAG: remark: <unknown>:0:0: pointer to disk-resident 'A' is stored to memory; compiled code reaches it through the run-time check of unknown pointers, other code through page faults
; REMARK-DAG: remark: <unknown>:0:0: pointer to disk-resident 'A' is passed to 'external', which is not compiled with the iopoly plugin in this module
