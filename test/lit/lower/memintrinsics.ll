; memset/memcpy/memmove touching disk-resident memory call the runtime;
; those on ordinary memory stay intrinsics.
; RUN: %opt_iopoly -passes=iopoly-globals,iopoly-lower -S %s | FileCheck %s

@A = global [512 x i8] zeroinitializer, !iopoly.disk_resident !0
@Plain = global [512 x i8] zeroinitializer
!0 = !{!"A"}

define void @f(ptr %dst, i64 %n) {
; CHECK-LABEL: define void @f(
; CHECK: call void @__iopoly_memset(ptr %{{.*}}, i32 7, i64 %n)
; CHECK: call void @__iopoly_memcpy(ptr %dst, ptr %{{.*}}, i64 %n)
; CHECK: call void @__iopoly_memmove(ptr %{{.*}}, ptr %{{.*}}, i64 16)
; CHECK: call void @llvm.memset.p0.i64(ptr @Plain, i8 1, i64 %n, i1 false)
  call void @llvm.memset.p0.i64(ptr @A, i8 7, i64 %n, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr @A, i64 %n, i1 false)
  %q = getelementptr inbounds i8, ptr @A, i64 8
  call void @llvm.memmove.p0.p0.i64(ptr %q, ptr @A, i64 16, i1 false)
  call void @llvm.memset.p0.i64(ptr @Plain, i8 1, i64 %n, i1 false)
  ret void
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
