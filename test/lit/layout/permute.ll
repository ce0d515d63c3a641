; The rewrite itself: V[64][32] walked V[j][i] (j innermost) becomes
; V'[32][64] accessed V'[i][j]; the metadata keeps the declared shape and
; records the layout for DiskGlobalsPass.
; RUN: %opt_iopoly -passes=iopoly-layout -S %s | FileCheck %s
; CHECK: @V = global [32 x [64 x double]] zeroinitializer, !iopoly.disk_resident ![[S:[0-9]+]], !iopoly.layout ![[L:[0-9]+]]
; CHECK-LABEL: define void @f(
; CHECK: %[[P:.*]] = getelementptr inbounds [32 x [64 x double]], ptr @V, i64 0, i64 %i, i64 %j
; CHECK-NEXT: load double, ptr %[[P]]
; CHECK: ![[S]] = !{!"V", i64 8, i64 64, i64 32}
; CHECK: ![[L]] = !{i32 1, i32 0}

@V = global [64 x [32 x double]] zeroinitializer, !iopoly.disk_resident !0

define void @f(ptr %out) {
entry:
  br label %for.i

for.i:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch.i ]
  br label %for.j

for.j:
  %j = phi i64 [ 0, %for.i ], [ %j.next, %for.j ]
  %row = getelementptr inbounds [64 x [32 x double]], ptr @V, i64 0, i64 %j
  %p = getelementptr inbounds [32 x double], ptr %row, i64 0, i64 %i
  %v = load double, ptr %p
  store double %v, ptr %out
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp ult i64 %j.next, 64
  br i1 %cj, label %for.j, label %latch.i

latch.i:
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp ult i64 %i.next, 32
  br i1 %ci, label %for.i, label %exit

exit:
  ret void
}

!0 = !{!"V", i64 8, i64 64, i64 32}
