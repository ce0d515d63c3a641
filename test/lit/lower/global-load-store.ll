; A disk-resident global becomes a pointer slot filled by a constructor that
; gives the runtime its shape, and each load/store becomes the window test,
; the fast access through delta, and the __iopoly_translate slow path with
; the access's source site; the function's window table is released before
; ret when it holds stripes.
; RUN: %opt_iopoly -passes=iopoly-globals,iopoly-lower -S %s | FileCheck %s

@A = global [1024 x double] zeroinitializer, !iopoly.disk_resident !0
@Init = global [4 x i32] [i32 1, i32 2, i32 3, i32 4], !iopoly.disk_resident !1
!0 = !{!"A"}
!1 = !{!"Init"}

; CHECK-NOT: @A = global
; CHECK-DAG: @A.iopoly = global ptr null, {{.*}}!iopoly.slot
; CHECK-DAG: @Init.iopoly.init = private constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]
; CHECK-DAG: @A.iopoly.dims = private constant [1 x i64] [i64 1024]
; CHECK-DAG: @iopoly.site = private constant %struct.iopoly_site { ptr @iopoly.site.file, ptr @iopoly.site.function, i32 0, i32 0, i64 0 }
; CHECK-DAG: @llvm.global_ctors = appending global {{.*}} @iopoly.init.A{{.*}} @iopoly.init.Init{{.*}} @iopoly.check_striping

define double @get(i64 %i) {
; CHECK-LABEL: define double @get(
; CHECK: %iopoly.windows = alloca [1 x %struct.iopoly_window], align 16
; CHECK: %[[BASE:.*]] = load ptr, ptr @A.iopoly
; CHECK: %[[P:.*]] = getelementptr inbounds [1024 x double], ptr %[[BASE]], i64 0, i64 %i
; CHECK: %iopoly.lo = load i64, ptr
; CHECK: %iopoly.limit = load i64, ptr
; CHECK: %[[PI:.*]] = ptrtoint ptr %[[P]] to i64
; CHECK: %iopoly.off = sub i64 %[[PI]], %iopoly.lo
; CHECK: %iopoly.inwin = icmp ult i64 %iopoly.off, %iopoly.limit
; CHECK: br i1 %iopoly.inwin, label %[[FAST:.*]], label %[[SLOW:.*]], !prof
; CHECK: [[FAST]]:
; CHECK: %iopoly.addr = getelementptr i8, ptr %[[P]], i64 %iopoly.delta
; CHECK: load double, ptr %iopoly.addr, align 8
; CHECK: [[SLOW]]:
; CHECK: %iopoly.real = call ptr @__iopoly_translate(ptr %iopoly.win{{[0-9]*}}, ptr %[[P]], i64 8, i32 1, ptr @iopoly.site)
; CHECK: load double, ptr %iopoly.real, align 8
; CHECK: phi double
; CHECK: %[[HELD:.*]] = icmp ne ptr
; CHECK: br i1 %[[HELD]]
; CHECK: call void @__iopoly_window_release(ptr %iopoly.win{{[0-9]*}})
; CHECK: ret double
  %p = getelementptr inbounds [1024 x double], ptr @A, i64 0, i64 %i
  %v = load double, ptr %p, align 8
  ret double %v
}

define void @put(i64 %i, i32 %x) {
; CHECK-LABEL: define void @put(
; CHECK: load ptr, ptr @Init.iopoly
; CHECK: store i32 %x, ptr %iopoly.addr, align 4
; CHECK: %iopoly.real = call ptr @__iopoly_translate(ptr %iopoly.win{{[0-9]*}}, ptr %{{.*}}, i64 4, i32 2, ptr @iopoly.site.{{[0-9]+}})
; CHECK-NEXT: store i32 %x, ptr %iopoly.real, align 4
; CHECK-NEXT: call void @__iopoly_commit()
; CHECK: call void @__iopoly_window_release(ptr %iopoly.win{{[0-9]*}})
; CHECK: ret void
  %p = getelementptr inbounds [4 x i32], ptr @Init, i64 0, i64 %i
  store i32 %x, ptr %p, align 4
  ret void
}

; CHECK-LABEL: define internal void @iopoly.init.A()
; CHECK: call void @__iopoly_global_init(ptr @iopoly.name.A, i64 8, i32 1, ptr @A.iopoly.dims, ptr null, ptr null, ptr @A.iopoly)
; CHECK-LABEL: define internal void @iopoly.init.Init()
; CHECK: call void @__iopoly_global_init(ptr @iopoly.name.Init, i64 4, i32 1, ptr @Init.iopoly.dims, ptr null, ptr @Init.iopoly.init, ptr @Init.iopoly)
