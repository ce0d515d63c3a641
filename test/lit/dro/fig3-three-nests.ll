; Paper 1, Fig. 3: three loop nests over one disk-resident array, four
; stripes on four disks. The original order goes back to stripes it left
; long ago (the third nest walks columns); the LSG order runs, stripe by
; stripe, the part of every nest that uses that stripe ("*" of L1, L2, L3,
; then "**", ...), which the element-wise dependences allow.
;
;   #define N 64
;   double A[N][N];                   /* 32 KiB: 16 rows per 8 KiB stripe */
;   #pragma iopoly disk_resident(A)
;   void nests(void) {
;     for (i) for (j) A[i][j] = i + j;          /* L1, row-wise */
;     for (i) for (j) A[i][j] = A[i][j] * 2;    /* L2, row-wise */
;     for (j) for (i) A[i][j] = A[i][j] + 1;    /* L3, column-wise */
;   }
; RUN: %opt_iopoly -iopoly-stripe=8K -iopoly-disks=4 -iopoly-granularity=disk \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s
; dro-wp applies the order (the remark reports the cost model's numbers);
; dro-l reorders each nest alone.
; RUN: %opt_iopoly -iopoly-stripe=8K -iopoly-disks=4 -iopoly-granularity=disk \
; RUN:   -passes=iopoly-dro-wp -pass-remarks=iopoly -disable-output %s 2>&1 | FileCheck %s --check-prefix=WP
; RUN: %opt_iopoly -iopoly-stripe=8K -iopoly-disks=4 -iopoly-granularity=disk \
; RUN:   -passes=iopoly-dro-wp -S %s | FileCheck %s --check-prefix=IR
; With an assumed buffer (stripe granularity: every set spans one 8 KiB
; stripe), a buffer that holds a set lets the order through; a smaller one
; keeps the original order and says why.
; RUN: %opt_iopoly -iopoly-stripe=8K -iopoly-disks=4 -iopoly-granularity=stripe -iopoly-buffer=8K \
; RUN:   -passes=iopoly-dro-wp -pass-remarks=iopoly -disable-output %s 2>&1 | FileCheck %s --check-prefix=FITS
; RUN: %opt_iopoly -iopoly-stripe=8K -iopoly-disks=4 -iopoly-granularity=stripe -iopoly-buffer=4K \
; RUN:   -passes=iopoly-dro-wp -pass-remarks-missed=iopoly -disable-output %s 2>&1 | FileCheck %s --check-prefix=TOOBIG

; CHECK: locality sets (12), splits 0, merges 0:
; CHECK: LSG edges: N0->N4 N1->N5 N2->N6 N3->N7 N4->N8 N5->N9 N6->N10 N7->N11
; CHECK: Hamming order:
; CHECK-NEXT: Lambda=1000 Stmt1
; CHECK-NEXT: Lambda=1000 Stmt4
; CHECK-NEXT: Lambda=1000 Stmt7
; CHECK-NEXT: Lambda=0100 Stmt1
; CHECK-NEXT: Lambda=0100 Stmt4
; CHECK-NEXT: Lambda=0100 Stmt7
; CHECK-NEXT: Lambda=0010 Stmt1
; CHECK-NEXT: Lambda=0010 Stmt4
; CHECK-NEXT: Lambda=0010 Stmt7
; CHECK-NEXT: Lambda=0001 Stmt1
; CHECK-NEXT: Lambda=0001 Stmt4
; CHECK-NEXT: Lambda=0001 Stmt7
; CHECK-NEXT: total Hamming distance: 6 (original order 22), fragmented sets 4

; WP: remark: {{.*}}dro-wp: reordered the loops here by locality sets: 12 sets (0 split, 0 merged), 4 of them visited in pieces before; disk state changes 30 -> 6

; FITS: dro-wp: reordered the loops here by locality sets: 12 sets
; TOOBIG: disk-reuse schedule not applied to the loops here: a locality set (Stmt{{[0-9]+}}) spans 8 KiB of stripes, more than the assumed buffer of 4 KiB (-iopoly-buffer)

; Polly generated the new loops: the original ones are kept only behind
; its run-time check.
; IR: polly.start:

@A = global [64 x [64 x double]] zeroinitializer, align 16, !iopoly.disk_resident !{!"A"}

define void @nests() {
entry:
  br label %for.cond1.preheader

for.cond1.preheader:                              ; preds = %entry, %for.cond.cleanup3
  %indvars.iv89 = phi i64 [ 0, %entry ], [ %indvars.iv.next90, %for.cond.cleanup3 ]
  br label %for.body4

for.cond.cleanup3:                                ; preds = %for.body4
  %indvars.iv.next90 = add nuw nsw i64 %indvars.iv89, 1
  %exitcond92.not = icmp eq i64 %indvars.iv.next90, 64
  br i1 %exitcond92.not, label %for.cond17.preheader, label %for.cond1.preheader

for.body4:                                        ; preds = %for.cond1.preheader, %for.body4
  %indvars.iv = phi i64 [ 0, %for.cond1.preheader ], [ %indvars.iv.next, %for.body4 ]
  %0 = add nuw nsw i64 %indvars.iv, %indvars.iv89
  %1 = trunc nuw nsw i64 %0 to i32
  %conv = uitofp nneg i32 %1 to double
  %arrayidx6 = getelementptr inbounds [64 x [64 x double]], ptr @A, i64 0, i64 %indvars.iv89, i64 %indvars.iv
  store double %conv, ptr %arrayidx6, align 8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, 64
  br i1 %exitcond.not, label %for.cond.cleanup3, label %for.body4

for.cond17.preheader:                             ; preds = %for.cond.cleanup3, %for.cond.cleanup20
  %indvars.iv97 = phi i64 [ %indvars.iv.next98, %for.cond.cleanup20 ], [ 0, %for.cond.cleanup3 ]
  br label %for.body21

for.cond.cleanup20:                               ; preds = %for.body21
  %indvars.iv.next98 = add nuw nsw i64 %indvars.iv97, 1
  %exitcond100.not = icmp eq i64 %indvars.iv.next98, 64
  br i1 %exitcond100.not, label %for.cond43.preheader, label %for.cond17.preheader

for.body21:                                       ; preds = %for.cond17.preheader, %for.body21
  %indvars.iv93 = phi i64 [ 0, %for.cond17.preheader ], [ %indvars.iv.next94, %for.body21 ]
  %arrayidx25 = getelementptr inbounds [64 x [64 x double]], ptr @A, i64 0, i64 %indvars.iv97, i64 %indvars.iv93
  %2 = load double, ptr %arrayidx25, align 8
  %mul = fmul double %2, 2.000000e+00
  store double %mul, ptr %arrayidx25, align 8
  %indvars.iv.next94 = add nuw nsw i64 %indvars.iv93, 1
  %exitcond96.not = icmp eq i64 %indvars.iv.next94, 64
  br i1 %exitcond96.not, label %for.cond.cleanup20, label %for.body21

for.cond43.preheader:                             ; preds = %for.cond.cleanup20, %for.cond.cleanup46
  %indvars.iv105 = phi i64 [ %indvars.iv.next106, %for.cond.cleanup46 ], [ 0, %for.cond.cleanup20 ]
  br label %for.body47

for.cond.cleanup40:                               ; preds = %for.cond.cleanup46
  ret void

for.cond.cleanup46:                               ; preds = %for.body47
  %indvars.iv.next106 = add nuw nsw i64 %indvars.iv105, 1
  %exitcond108.not = icmp eq i64 %indvars.iv.next106, 64
  br i1 %exitcond108.not, label %for.cond.cleanup40, label %for.cond43.preheader

for.body47:                                       ; preds = %for.cond43.preheader, %for.body47
  %indvars.iv101 = phi i64 [ 0, %for.cond43.preheader ], [ %indvars.iv.next102, %for.body47 ]
  %arrayidx51 = getelementptr inbounds [64 x [64 x double]], ptr @A, i64 0, i64 %indvars.iv101, i64 %indvars.iv105
  %3 = load double, ptr %arrayidx51, align 8
  %add52 = fadd double %3, 1.000000e+00
  store double %add52, ptr %arrayidx51, align 8
  %indvars.iv.next102 = add nuw nsw i64 %indvars.iv101, 1
  %exitcond104.not = icmp eq i64 %indvars.iv.next102, 64
  br i1 %exitcond104.not, label %for.cond.cleanup46, label %for.body47
}
