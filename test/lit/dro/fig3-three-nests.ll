; Paper 1, Fig. 3: three loop nests over one disk-resident array. The
; original order goes back to stripes it left long ago (the third nest walks
; columns); the restructured order runs, unit by unit of the array, the part
; of every nest that uses that unit ("*" of L1, L2, L3, then "**", ...),
; which the element-wise dependences allow. The three nests are three set
; families of the LSG (one per statement, parametric in the unit), fused
; into one loop over the units of A.
;
;   #define N 64
;   double A[N][N];                   /* 32 KiB */
;   #pragma iopoly disk_resident(A)
;   void nests(void) {
;     for (i) for (j) A[i][j] = i + j;          /* L1, row-wise */
;     for (i) for (j) A[i][j] = A[i][j] * 2;    /* L2, row-wise */
;     for (j) for (i) A[i][j] = A[i][j] + 1;    /* L3, column-wise */
;   }
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=4 \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s
; The paper's disk maps as units (granularity=disk, 8 KiB stripes on 4
; disks: one stripe per disk): one version, units = disks.
; RUN: %opt_iopoly -iopoly-stripe=8K -iopoly-disks=4 -iopoly-granularity=disk \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s --check-prefix=DISK
; dro-wp applies it, in versions chosen at run time.
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=4 -iopoly-versions=all \
; RUN:   -passes=iopoly-dro-wp -pass-remarks=iopoly -disable-output %s 2>&1 | FileCheck %s --check-prefix=WP
; By default the versions no plausible run takes are not compiled: with
; these few KiB of data, any buffer of 16 stripes holds it all.
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=4 \
; RUN:   -passes=iopoly-dro-wp -pass-remarks-analysis=iopoly -disable-output %s 2>&1 | FileCheck %s --check-prefix=PLAUSIBLE
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=4 -iopoly-versions=all -passes=iopoly-dro-wp -S %s | FileCheck %s --check-prefix=IR
; A buffer known at compile time (-iopoly-buffer) compiles just its version;
; one that holds all the data keeps the original order and says why.
; RUN: %opt_iopoly -iopoly-stripe=4K -iopoly-disks=4 -iopoly-buffer=12K \
; RUN:   -passes=iopoly-dro-wp -pass-remarks=iopoly -S %s -o - 2>&1 | FileCheck %s --check-prefix=FITS
; RUN: %opt_iopoly -iopoly-stripe=8K -iopoly-disks=4 -iopoly-buffer=64K \
; RUN:   -passes=iopoly-dro-wp -pass-remarks-missed=iopoly -disable-output %s 2>&1 | FileCheck %s --check-prefix=TOOBIG

; CHECK: disk-resident arrays (map bits): [0] A (32768 bytes)
; CHECK: set families (3), splits 0, merges 0:
; CHECK: LSG edges: F0->F1 F1->F2
; CHECK: Hamming order: F0 F1 F2
; CHECK: members (unit 4096 bytes):
; CHECK-NEXT: F0 Stmt1 pivot A: { Stmt1[i0, i1] -> [(floor((64i0 + i1)/512))]
; CHECK: F1 Stmt4 pivot A: { Stmt4[i0, i1] -> [(floor((64i0 + i1)/512))]
; CHECK: F2 Stmt7 pivot A: { Stmt7[i0, i1] -> [(floor((i0 + 64i1)/512))]
; CHECK: groups (1):
; CHECK-NEXT: G0 tiled: F0 F1 F2
; CHECK: version 0: unit 16384 bytes
; CHECK: version 1: unit 4096 bytes
; CHECK-NEXT: group 1 A: span 4096, 1 x 4096 bytes, window 4096, total 32768, tiles 8
; CHECK: version 2: original order
; The column walk streams A in the original order: 64 passes.
; CHECK: group {{[0-9]+}} A: {{.*}} tiles 64, streamed, original
; A buffer of half the data runs 4 KiB tiles; one stripe cannot hold a tile.
; CHECK: buffer 4 stripes of 4K (data/2): version 1
; CHECK: buffer 1 stripes of 4K (data/8): version 2 (original order)

; DISK: members (unit = disk of the stripe):
; DISK-NEXT: F0 Stmt1 pivot A: { Stmt1[i0, i1] -> [(floor((64i0 + i1)/1024) - 4*floor((64i0 + i1)/4096))]
; DISK: G0 tiled: F0 F1 F2
; DISK: version 0: unit 8192 bytes
; DISK: version 1: original order

; WP: remark: {{.*}}dro-wp: tiled the loops here by their data: 1 tiled group(s), 2 loop nest(s) fused into another's tiles; versions: units 16K, 4K, Polly's schedule in tiles of 4, 8, 16, 32{{.*}} and the original order, one chosen at run time from the buffer and stripe

; PLAUSIBLE: remark: {{.*}}keeps the loops here in their order: the original order is within 5% of the best version for every plausible run (estimated; stripes of 4K, 64K or 1M, a buffer of 1/64 to 7/10 of the data, the hdd disk model or none)

; The version is a SCoP parameter: the runtime's answer for this table.
; IR: %iopoly.version = call i32 @__iopoly_pick_version(ptr @iopoly.tile.table)
; IR: polly.start:

; FITS: dro-wp: tiled the loops here by their data: {{.*}}versions: unit 4K (for the assumed buffer)
; FITS-NOT: __iopoly_pick_version
; TOOBIG: disk-reuse restructuring left the loops here in their order: with the assumed buffer of 64K bytes (-iopoly-buffer) the cost model prefers the original order

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
