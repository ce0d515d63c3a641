; An innermost loop with affine, unconditional disk-resident accesses is
; strip-mined: strip.head translates each stream once (the load and the
; store of A[i] are one stream, served by one window attached for writing;
; the runtime is called only when the window does not hold the address),
; computes how many iterations stay inside every window, and runs the loop
; that many times with the accesses rebased by the window's delta - no test
; per access - or, when every delta is 0 (stripes mapped at their own
; addresses), the in-place copy, whose accesses are the original ones. A
; checked copy runs one iteration when an access straddles two stripes.
; The reduction (a header phi) and the value used after the loop are
; carried across strips.
; RUN: %opt_iopoly -passes=iopoly-globals,iopoly-lower -pass-remarks=iopoly -S %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt_iopoly -passes=iopoly-globals,iopoly-lower -iopoly-hoist=false -S %s | FileCheck %s --check-prefix=NOHOIST

@A = global [4096 x double] zeroinitializer, !iopoly.disk_resident !0
!0 = !{!"A"}

define double @sum(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, ptr @A, i64 %i
  %v = load double, ptr %p, align 8
  %s1 = fadd double %s, %v
  %w = fmul double %v, 2.0
  store double %w, ptr %p, align 8
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = phi double [ %s1, %loop ]
  ret double %r
}

; CHECK-LABEL: define double @sum(
; CHECK: strip.head:
; CHECK: %strip.done = phi i64 [ 0, %entry ], [ %strip.done.next, %strip.latch ]
; CHECK: %s.carry = phi double [ 0.000000e+00, %entry ], [ %s.next, %strip.latch ]
; CHECK: strip.translate:
; CHECK: call ptr @__iopoly_translate(ptr %iopoly.win{{[0-9]*}}, ptr %strip.addr, i64 8, i32 2, ptr @iopoly.site)
; CHECK-NOT: strip.translate{{[0-9]+}}:
; CHECK: br i1 %{{.*}}, label %strip.pick, label %loop.checked
; CHECK: strip.pick:
; CHECK-NEXT: br i1 %strip.inplace, label %loop.inplace, label %loop
; CHECK: loop:
; CHECK: %strip.count = phi i64
; CHECK: %strip.real = getelementptr i8, ptr %p, i64 %strip.delta
; CHECK-NEXT: load double, ptr %strip.real
; CHECK: %strip.real{{[0-9]*}} = getelementptr i8, ptr %p, i64 %strip.delta
; CHECK-NEXT: store double %w, ptr %strip.real
; CHECK-NOT: __iopoly_translate
; CHECK: br i1 %{{.*}}, label %loop, label %strip.latch
; CHECK: strip.latch:
; CHECK: %strip.ran = phi i64 [ %strip.n{{[0-9]*}}, %loop ], [ 1, %{{.*}} ], [ %strip.n{{[0-9]*}}, %loop.inplace ]
; CHECK: br i1 %{{.*}}, label %exit, label %strip.head
; CHECK: exit:
; CHECK: %r = phi double [ %r.strip, %strip.latch ]
; CHECK: loop.checked:
; CHECK: call ptr @__iopoly_translate
; CHECK: br label %strip.latch
; CHECK: loop.inplace:
; CHECK: %strip.real{{[0-9]*}} = getelementptr i8, ptr %p.inplace, i64 0
; CHECK-NEXT: load double, ptr %strip.real
; CHECK-NOT: __iopoly_translate
; CHECK: br i1 %{{.*}}, label %loop.inplace, label %strip.latch

; REMARK: remark: <unknown>:0:0: strip-mined loop at stripe boundaries: 2 accesses to 'A' in 1 stream are translated once per strip instead of once per iteration

; NOHOIST-NOT: strip.head

; A guarded access (Polly's generated loops guard their statements) is in a
; stream too (A[i-4] and A[i], one stream attached for writing): its window
; is translated as a probe (mode WRITE|PROBE = 258), since at the strip's
; first iteration its guard may be false and its address, A[-4] there,
; outside every array.
define void @guarded(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %latch ]
  %g = icmp ugt i64 %i, 3
  br i1 %g, label %then, label %latch
then:
  %j = add i64 %i, -4
  %p = getelementptr double, ptr @A, i64 %j
  %v = load double, ptr %p, align 8
  %w = fmul double %v, 2.0
  %q = getelementptr double, ptr @A, i64 %i
  store double %w, ptr %q, align 8
  br label %latch
latch:
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; CHECK-LABEL: define void @guarded(
; CHECK: strip.head{{[0-9]*}}:
; CHECK: call ptr @__iopoly_translate(ptr %{{[^,]*}}, ptr %strip.addr{{[0-9]*}}, i64 8, i32 258, ptr @iopoly.site
; CHECK-NOT: @__iopoly_translate(ptr %{{[^,]*}}, ptr %strip.addr
; CHECK: br i1 %{{.*}}, label %strip.pick{{[0-9]*}}, label %loop.checked
; CHECK: then:
; CHECK: %strip.real{{[0-9]*}} = getelementptr i8, ptr %p, i64 %strip.delta
; CHECK-NEXT: load double, ptr %strip.real
