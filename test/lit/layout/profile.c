// layout=profile: the counts of an instrumented run replace the compile-
// time weights. W is read along its columns `cols` times and along its rows
// `rows` times, both unknown at compile time: statically (parameters at
// the same representative value) the two walks tie and W stays row-major;
// a profile recording three column walks per row walk stores it
// column-major. Arrays the profile does not list, and a profile that does
// not match the accesses, are scored statically with a remark saying so;
// a missing or malformed profile is an error.
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -Rpass-missed=iopoly -fplugin-arg-iopoly-layout=profile -fplugin-arg-iopoly-layout-profile=%S/Inputs/profile-columns.txt %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROFILE
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -Rpass-missed=iopoly -fplugin-arg-iopoly-layout=profile -fplugin-arg-iopoly-layout-profile=%S/Inputs/profile-stale.txt %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not %clang_iopoly -O2 -c -fplugin-arg-iopoly-layout=profile -fplugin-arg-iopoly-layout-profile=%S/Inputs/profile-bad.txt %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %clang_iopoly -O2 -c -fplugin-arg-iopoly-layout=profile -fplugin-arg-iopoly-layout-profile=%t.missing %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %clang_iopoly -O2 -c -fplugin-arg-iopoly-layout=profile %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not %clang_iopoly -O2 -c -fplugin-arg-iopoly-layout-profile=%S/Inputs/profile-columns.txt %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTPROFILE
//
// STATIC: remark: file layout of 'W': 0,1 (row-major), another layout has as many accesses stride-1 in the file (ties keep row-major) (statement instances along / against each layout: 0,1: 26214400 along, 26214400 against; 1,0: 26214400 along, 26214400 against; other: 0; weights: exact domain count with parameters at representative values (2 accesses))
// PROFILE-DAG: remark: file layout of 'W': 1,0 (column-major), most accesses (weighted by how many times their statements run) are stride-1 in the file (statement instances along / against each layout: 0,1: 1000000 along, 3000000 against; 1,0: 3000000 along, 1000000 against; other: 0; weights: profile (2 accesses))
// PROFILE-DAG: remark: file layout of 'A': scored without the profile because the profile '{{.*}}profile-columns.txt' has no counts for it (unit {{.*}}profile.c)
// PROFILE-DAG: remark: file layout of 'A': 0,1 (row-major), {{.*}}; weights: exact domain count with parameters at representative values (2 accesses))
// STALE-DAG: remark: file layout of 'W': scored without the profile because the profile '{{.*}}profile-stale.txt' does not match this compilation (site 1 in 'f', a load, is recorded as a store; the source or the options changed since the instrumented build)
// STALE-DAG: remark: file layout of 'W': 0,1 (row-major), another layout has as many {{.*}}; weights: exact domain count with parameters at representative values (2 accesses))
// BAD: error: -fplugin-arg-iopoly-layout-profile: {{.*}}profile-bad.txt:4: site 'zero' is not a number
// MISSING: error: -fplugin-arg-iopoly-layout-profile: cannot read the layout profile '{{.*}}.missing': No such file or directory
// NOFILE: error: -fplugin-arg-iopoly-layout=profile needs -fplugin-arg-iopoly-layout-profile=FILE
// NOTPROFILE: error: -fplugin-arg-iopoly-layout-profile is read by -fplugin-arg-iopoly-layout=profile only (layout is 'static')
#define N 512
double W[N][N], A[N][N], B[N][N];
#pragma iopoly disk_resident(W, A, B)

void f(int cols, int rows) {
  for (int t = 0; t < cols; ++t)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        A[i][j] += W[j][i];
  for (int t = 0; t < rows; ++t)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        B[i][j] += W[i][j];
}
