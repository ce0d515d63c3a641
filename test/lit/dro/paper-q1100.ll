; Paper 1, section 3: an array U of K elements striped over 4 disks with
; one stripe per disk, a loop i = 1 .. K-2 reading two elements two apart.
; The paper's Q_1100 (iterations touching only the first two disks) is
; {1 <= xi <= K/2 - 2}; here it is the union of the exact sets 1000, 1100
; and 0100. With K = 2048 doubles and 4 KiB stripes, Polly's i0 = i - 1:
; {0 <= i0 <= 1021} = {1 <= i <= 1022 = K/2 - 2}.
;
;   double U[2048];
;   #pragma iopoly disk_resident(U)
;   void f(void) {
;     for (int i = 1; i <= K - 2; ++i)
;       U[i] = U[i - 1] + U[i + 1];
;   }
;
; (clang -O1 -fno-unroll-loops; U[i-1] is carried in a register.)
; RUN: %opt_iopoly -iopoly-stripe=4096 -iopoly-disks=4 -iopoly-granularity=disk \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s
; With two disks the recurrence goes back to disk 0 at the third stripe: a
; cycle that no split can cut, so the sets are merged; stripe granularity
; (units are stripes, not disks) has no cycle.
; RUN: %opt_iopoly -iopoly-stripe=4096 -iopoly-disks=2 -iopoly-granularity=disk \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s --check-prefix=TWO
; RUN: %opt_iopoly -iopoly-stripe=4096 -iopoly-disks=2 -iopoly-granularity=stripe \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s --check-prefix=STRIPE

; CHECK: iopoly LSG of SCoP {{.*}} in function f
; CHECK: units (4): [0] disk 0; [1] disk 1; [2] disk 2; [3] disk 3
; CHECK: locality sets (7), splits 0, merges 0:
; CHECK-DAG: Lambda=1000 Stmt0: { Stmt0[i0] : 0 <= i0 <= 509 }
; CHECK-DAG: Lambda=1100 Stmt0: { Stmt0[510] }
; CHECK-DAG: Lambda=0100 Stmt0: { Stmt0[i0] : 511 <= i0 <= 1021 }
; CHECK-DAG: Lambda=0110 Stmt0: { Stmt0[1022] }
; CHECK-DAG: Lambda=0010 Stmt0: { Stmt0[i0] : 1023 <= i0 <= 1533 }
; CHECK-DAG: Lambda=0011 Stmt0: { Stmt0[1534] }
; CHECK-DAG: Lambda=0001 Stmt0: { Stmt0[i0] : 1535 <= i0 <= 2045 }
; The recurrence orders the sets along the array; each step changes one disk.
; CHECK: Hamming order:
; CHECK-NEXT: Lambda=1000
; CHECK-NEXT: Lambda=1100
; CHECK-NEXT: Lambda=0100
; CHECK-NEXT: Lambda=0110
; CHECK-NEXT: Lambda=0010
; CHECK-NEXT: Lambda=0011
; CHECK-NEXT: Lambda=0001
; CHECK-NEXT: total Hamming distance: 6

; TWO: units (2): [0] disk 0; [1] disk 1
; TWO: locality sets (1), splits 0, merges 1:
; TWO-NEXT: Lambda=11

; STRIPE: units (4): [0] MemRef{{[0-9]+}} stripes 0..0; [1] MemRef{{[0-9]+}} stripes 1..1;
; STRIPE: locality sets (7), splits 0, merges 0:

@U = global [2048 x double] zeroinitializer, align 16, !iopoly.disk_resident !0

define void @f() {
entry:
  %u0 = load double, ptr @U, align 16
  br label %loop

loop:
  %prev = phi double [ %u0, %entry ], [ %sum, %loop ]
  %i = phi i64 [ 1, %entry ], [ %i.next, %loop ]
  %i.next = add nuw nsw i64 %i, 1
  %pnext = getelementptr inbounds [2048 x double], ptr @U, i64 0, i64 %i.next
  %next = load double, ptr %pnext, align 8
  %sum = fadd double %prev, %next
  %pi = getelementptr inbounds [2048 x double], ptr @U, i64 0, i64 %i
  store double %sum, ptr %pi, align 8
  %done = icmp eq i64 %i.next, 2047
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

!0 = !{!"U"}
