// Paper 1, section 4: in U[i][j] = f(V[j][i]) U is walked along its rows and
// V along its columns; layout=static (the default) stores V column-major,
// the only layout in which its accesses are stride-1 in the file, and U
// row-major. The module passes V's layout to the runtime, and V's slot
// names the layout (an extern declaration compiled row-major cannot link).
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %clang_iopoly -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang_iopoly -O2 -S -emit-llvm -fplugin-arg-iopoly-layout=off %s -o - | FileCheck %s --check-prefix=OFF
//
// REMARK-DAG: remark: file layout of 'U': 0,1 (row-major), most accesses (weighted by how many times their statements run) are stride-1 in the file (statement instances along / against each layout: 0,1: 1048576 along, 0 against; 1,0: 0 along, 1048576 against; other: 0; weights: exact domain count (1 access))
// REMARK-DAG: remark: file layout of 'V': 1,0 (column-major), most accesses (weighted by how many times their statements run) are stride-1 in the file (statement instances along / against each layout: 0,1: 0 along, 1048576 against; 1,0: 1048576 along, 0 against; other: 0; weights: exact domain count (1 access))
//
// IR-DAG: @V.iopoly.1.0 = {{.*}}global ptr null
// IR-DAG: @U.iopoly = {{.*}}global ptr null
// IR-DAG: @V.iopoly.layout = private constant [2 x i32] [i32 1, i32 0]
// IR-DAG: call void @__iopoly_global_init(ptr nonnull @iopoly.name.V, i64 8, i32 2, ptr nonnull @V.iopoly.dims, ptr nonnull @V.iopoly.layout, ptr null, ptr nonnull @V.iopoly.1.0)
// IR-DAG: call void @__iopoly_global_init(ptr nonnull @iopoly.name.U, i64 8, i32 2, ptr nonnull @U.iopoly.dims, ptr null, ptr null, ptr nonnull @U.iopoly)
// IR-DAG: @V.iopoly.dims = private constant [2 x i64] [i64 1024, i64 1024]
//
// OFF-NOT: iopoly.layout
// OFF: call void @__iopoly_global_init(ptr nonnull @iopoly.name.V, i64 8, i32 2, ptr nonnull @V.iopoly.dims, ptr null, ptr null, ptr nonnull @V.iopoly)
#define N 1024
double U[N][N], V[N][N];
#pragma iopoly disk_resident(U, V)

void transposed_walk(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      U[i][j] = 2.0 * V[j][i] + 1.0;
}
