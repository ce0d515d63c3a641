; A dependence cycle between set families that needs a node split (paper
; 1, Fig. 9). In one loop, statement A (Stmt0) reads U and writes T;
; statement B (Stmt0b) reads T backwards and writes V. B's first half reads
; T before A writes it, its second half after, so the two families depend
; on each other. Splitting A into the instances before and after B (the
; three conditions hold: no predecessor reaches the "before" part, the
; "after" part reaches no successor, and the parts are independent) leaves
; a chain: A (before), B, A (after).
;
;   double U[512], V[1024], T[512];   /* U, V disk-resident, 4 KiB stripes */
;   for (int i = 0; i < 512; ++i) {
;     T[i] = U[i] * 3;                /* A */
;     V[512 + i] = T[511 - i] + 1;    /* B */
;   }
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=2 \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s
; No split allowed: the cycle is merged into one family (OR of the maps),
; which no loop over units can order: T is written in one unit of the
; merged family and read in an earlier one.
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=2 -iopoly-max-splits=0 \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s --check-prefix=MERGE
; The split order is legal and applied.
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=2 -iopoly-versions=all \
; RUN:   -passes=iopoly-dro-wp -pass-remarks=iopoly -disable-output %s 2>&1 | FileCheck %s --check-prefix=WP

; CHECK: set families (3), splits 1, merges 0:
; CHECK-DAG: Lambda=10 Stmt0 (after): { Stmt0[i0] : 256 <= i0 <= 511 }
; CHECK-DAG: Lambda=01 Stmt0b: { Stmt0b[i0] : 0 <= i0 <= 511 }
; CHECK-DAG: Lambda=10 Stmt0 (before): { Stmt0[i0] : 0 <= i0 <= 255 }
; CHECK: LSG edges: F1->F0 F2->F1
; CHECK: Hamming order: F2 F1 F0
; CHECK: groups (2):
; CHECK-NEXT: G0 tiled: F2 F1
; CHECK-NEXT: G1 original order: F0

; MERGE: set families (1), splits 0, merges 1:
; MERGE-NEXT: Lambda=11 Stmt0 + Stmt0b
; MERGE: G0 original order: F0 (array 'T' is written in one unit and read in an earlier one

; WP: remark: {{.*}}dro-wp: tiled the loops here by their data: 1 tiled group(s), 1 loop nest(s) fused into another's tiles

@U = global [512 x double] zeroinitializer, align 16, !iopoly.disk_resident !{!"U"}
@T = global [512 x double] zeroinitializer, align 16
@V = global [1024 x double] zeroinitializer, align 16, !iopoly.disk_resident !{!"V"}

define void @cycle() {
entry:
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body
  ret void

for.body:                                         ; preds = %entry, %for.body
  %indvars.iv = phi i64 [ 0, %entry ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds [512 x double], ptr @U, i64 0, i64 %indvars.iv
  %0 = load double, ptr %arrayidx, align 8
  %mul = fmul double %0, 3.000000e+00
  %arrayidx2 = getelementptr inbounds [512 x double], ptr @T, i64 0, i64 %indvars.iv
  store double %mul, ptr %arrayidx2, align 8
  %1 = sub nuw nsw i64 511, %indvars.iv
  %arrayidx4 = getelementptr inbounds [512 x double], ptr @T, i64 0, i64 %1
  %2 = load double, ptr %arrayidx4, align 8
  %add = fadd double %2, 1.000000e+00
  %3 = or disjoint i64 %indvars.iv, 512
  %arrayidx7 = getelementptr inbounds [1024 x double], ptr @V, i64 0, i64 %3
  store double %add, ptr %arrayidx7, align 8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, 512
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body
}
