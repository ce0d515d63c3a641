; After inlining, a pointer named by pragmas in a caller and in its callee
; reaches the loops through two markers (a marker of a marker), and the
; caller's own loops mark it once more. Polly would see three base pointers
; for one array, guard its code with an alias check that fails at run time
; (they are the same array) and run the original loops. iopoly-fold-markers
; leaves one marker: the inner one, which dominates the others.
; RUN: %opt_iopoly -passes=iopoly-fold-markers -S %s | FileCheck %s

declare ptr @__iopoly_mark(ptr) memory(none) nounwind willreturn

; CHECK-LABEL: define double @inlined(
; CHECK:      %outer = call ptr @__iopoly_mark(ptr %p)
; CHECK-NOT:  call ptr @__iopoly_mark
; CHECK:      load double, ptr %outer
; CHECK-NEXT: load double, ptr %outer
; CHECK-NEXT: getelementptr inbounds double, ptr %outer, i64 1
define double @inlined(ptr %p) {
entry:
  %outer = call ptr @__iopoly_mark(ptr %p), !iopoly.disk_resident !0
  %callee = call ptr @__iopoly_mark(ptr %outer), !iopoly.disk_resident !1
  %again = call ptr @__iopoly_mark(ptr %p), !iopoly.disk_resident !0
  %x = load double, ptr %callee
  %y = load double, ptr %again
  %q = getelementptr inbounds double, ptr %again, i64 1
  %z = load double, ptr %q
  %s = fadd double %x, %y
  %t = fadd double %s, %z
  ret double %t
}

; Markers in branches that do not dominate each other stay.
; CHECK-LABEL: define double @branches(
; CHECK-COUNT-2: call ptr @__iopoly_mark(ptr %p)
define double @branches(ptr %p, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %m1 = call ptr @__iopoly_mark(ptr %p), !iopoly.disk_resident !0
  %x = load double, ptr %m1
  br label %join
b:
  %m2 = call ptr @__iopoly_mark(ptr %p), !iopoly.disk_resident !0
  %y = load double, ptr %m2
  br label %join
join:
  %r = phi double [ %x, %a ], [ %y, %b ]
  ret double %r
}

; A marker sunk under a guard inside a loop (the first access was there)
; moves out of the loop, to its preheader: Polly needs an invariant base.
; CHECK-LABEL: define void @guarded(
; CHECK:       %p = call ptr @get()
; CHECK-NEXT:  %m = call ptr @__iopoly_mark(ptr %p)
; CHECK-NEXT:  br label %outer
declare ptr @get()
define void @guarded(i64 %n) {
entry:
  %p = call ptr @get()
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %body, label %latch
body:
  %m = call ptr @__iopoly_mark(ptr %p), !iopoly.disk_resident !0
  %a = getelementptr inbounds double, ptr %m, i64 %i
  store double 0.0, ptr %a
  br label %latch
latch:
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, 8
  br i1 %done, label %exit, label %outer
exit:
  ret void
}

!0 = !{!"A"}
!1 = !{!"X"}
