; Paper 1, section 3: an array U striped over 4 disks, a loop reading two
; elements two apart. The paper's locality set Q_Lambda is a member of the
; statement's set family: here the family is parametric in its unit, member
; u holding the instances whose pivot access (the store U[i]) lies in
; unit u. With disk units (granularity=disk) u is the disk of the stripe,
; floor(byte / 4096) mod 4: Q_1000 is member 0, and so on.
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
; With two disks a loop over disks would run stripe 2 (disk 0) before
; stripe 1 (disk 1), against the recurrence through the register: the
; family stays in its order and the reason names the scalar.
; RUN: %opt_iopoly -iopoly-stripe=4096 -iopoly-disks=2 -iopoly-granularity=disk \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s --check-prefix=TWO
; Stripe units: the loop already walks U unit by unit; nothing to gain.
; RUN: %opt_iopoly -iopoly-stripe=4096 -iopoly-disks=2 \
; RUN:   -passes='function(print<iopoly-lsg>)' -disable-output %s 2>&1 | FileCheck %s --check-prefix=STRIPE

; CHECK: iopoly LSG of SCoP {{.*}} in function f
; CHECK: disk-resident arrays (map bits): [0] U
; CHECK: set families (1), splits 0, merges 0:
; CHECK: members (unit = disk of the stripe):
; CHECK-NEXT: F0 Stmt0 pivot U: { Stmt0[i0] -> [(floor((1 + i0)/512) - 4*floor((1 + i0)/2048))] : 0 <= i0 <= 2045 }
; CHECK: G0 original order: F0 (the original order already walks the data unit by unit)

; TWO: G0 original order: F0 (the scalar '{{.*}}' chains every iteration of these loops to the next)

; STRIPE: members (unit 4096 bytes):
; STRIPE: G0 original order: F0 (the original order already walks the data unit by unit)
; STRIPE: not tiled: the original order already walks the data unit by unit

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
