; A dependence cycle that needs a node split (paper 1, Fig. 9). In one loop,
; statement A (Stmt0) reads U on disk 0 and writes T; statement B (Stmt0b)
; reads T backwards and writes V on disk 1. B's first half reads T before A
; writes it, its second half after, so the two sets depend on each other.
; Splitting A into the instances before and after B (the three conditions
; hold: no predecessor reaches the "before" part, the "after" part reaches
; no successor, and the parts are independent) leaves a chain.
;
;   double U[512], V[1024], T[512];   /* U, V disk-resident, 4 KiB stripes */
;   for (int i = 0; i < 512; ++i) {
;     T[i] = U[i] * 3;                /* A: disk 0 */
;     V[512 + i] = T[511 - i] + 1;    /* B: disk 1 */
;   }
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=2 -iopoly-granularity=disk \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s
; No split allowed: the cycle is merged into one set (OR of the maps).
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=2 -iopoly-granularity=disk -iopoly-max-splits=0 \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s --check-prefix=MERGE
; The split order is legal and applied.
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=2 -iopoly-granularity=disk \
; RUN:   -passes=iopoly-dro-wp -pass-remarks=iopoly -disable-output %s 2>&1 | FileCheck %s --check-prefix=WP

; CHECK: locality sets (3), splits 1, merges 0:
; CHECK-DAG: Lambda=10 Stmt0 (after): { Stmt0[i0] : 256 <= i0 <= 511 }
; CHECK-DAG: Lambda=01 Stmt0b: { Stmt0b[i0] : 0 <= i0 <= 511 }
; CHECK-DAG: Lambda=10 Stmt0 (before): { Stmt0[i0] : 0 <= i0 <= 255 }
; CHECK: Hamming order:
; CHECK-NEXT: Lambda=10 Stmt0 (before)
; CHECK-NEXT: Lambda=01 Stmt0b
; CHECK-NEXT: Lambda=10 Stmt0 (after)

; MERGE: locality sets (1), splits 0, merges 1:
; MERGE-NEXT: Lambda=11

; WP: remark: {{.*}}dro-wp: reordered the loops here by locality sets: 3 sets (1 split, 0 merged)

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
