// Explicit layouts: '#pragma iopoly layout(V, 0, 1)' keeps the transposed V
// row-major; -fplugin-arg-iopoly-layout=U:1,0 stores the row-walked U
// column-major (the other arrays are still chosen). Bad requests are errors.
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -DPRAGMA %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRAGMA
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly -fplugin-arg-iopoly-layout=U:1,0 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly '-fplugin-arg-iopoly-layout=U:1,0+V:0,1' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: %clang_iopoly -O0 -c -Rpass=iopoly -fplugin-arg-iopoly-layout=U:1,0 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=O0
// RUN: not %clang_iopoly -O2 -c -DBADPRAGMA %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADPRAGMA
// RUN: not %clang_iopoly -O2 -c -DUNKNOWN %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %clang_iopoly -fplugin-arg-iopoly-layout=V:1,1 -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=NOTPERM
// RUN: not %clang_iopoly -fplugin-arg-iopoly-layout=V -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not %clang_iopoly -fplugin-arg-iopoly-layout=profile -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=PROFILE
// RUN: not %clang_iopoly -fplugin-arg-iopoly-layout=profile -fplugin-arg-iopoly-layout-profile=%t.none -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=PROFILEFILE
// RUN: %clang_iopoly -fsyntax-only -Xclang -verify -DSYNTAXERRORS %s
//
// PRAGMA-DAG: remark: file layout of 'V': 0,1 (row-major), requested by #pragma iopoly layout (statement instances along / against each layout: 0,1: 0 along, 65536 against; 1,0: 65536 along, 0 against; other: 0; weights: exact domain count (1 access))
// PRAGMA-DAG: remark: file layout of 'U': 0,1 (row-major), most accesses
// OPTION-DAG: remark: file layout of 'U': 1,0 (column-major), requested by -fplugin-arg-iopoly-layout (statement instances along / against each layout: 0,1: 65536 along, 0 against; 1,0: 0 along, 65536 against; other: 0; weights: exact domain count (1 access))
// OPTION-DAG: remark: file layout of 'V': 1,0 (column-major), most accesses
// BOTH-DAG: remark: file layout of 'U': 1,0 (column-major), requested by -fplugin-arg-iopoly-layout
// BOTH-DAG: remark: file layout of 'V': 0,1 (row-major), requested by -fplugin-arg-iopoly-layout
// At -O0 requests are applied, nothing is chosen.
// O0-NOT: file layout of 'V'
// O0: remark: file layout of 'U': 1,0 (column-major), requested by -fplugin-arg-iopoly-layout
// O0-NOT: file layout of 'V'
// BADPRAGMA: error: iopoly: #pragma iopoly layout asks for layout 1,0,2 of 'V', which has 2 dimensions: expected a permutation of 0..1
// UNKNOWN: error: iopoly: {{.*}}override.c:{{[0-9]+}}:{{[0-9]+}}: '#pragma iopoly layout' names 'Nope', which is not a disk-resident global array of this file
// NOTPERM: error: invalid value 'V:1,1' for iopoly option 'layout': '1,1' is not a permutation of the dimensions 0..1
// SYNTAX: error: invalid value 'V' for iopoly option 'layout': 'V' is not NAME:P0,P1,...
// PROFILE: error: -fplugin-arg-iopoly-layout=profile needs -fplugin-arg-iopoly-layout-profile=FILE
// PROFILEFILE: error: -fplugin-arg-iopoly-layout-profile: cannot read the layout profile '{{.*}}.none': No such file or directory
#define N 256
double U[N][N], V[N][N];
#pragma iopoly disk_resident(U, V)
#ifdef PRAGMA
#pragma iopoly layout(V, 0, 1)
#endif
#ifdef BADPRAGMA
#pragma iopoly layout(V, 1, 0, 2)
#endif
#ifdef UNKNOWN
#pragma iopoly layout(Nope, 1, 0)
#endif
#ifdef SYNTAXERRORS
#pragma iopoly layout V                     // expected-error {{expected '(' after '#pragma iopoly layout'}}
#pragma iopoly layout(1, 0)                 // expected-error {{expected the name of a disk-resident array}}
#pragma iopoly layout(V)                    // expected-error {{needs the array's dimensions in file order}}
#pragma iopoly layout(V, x)                 // expected-error {{expected a dimension number}}
#pragma iopoly layout(V, 1 0)               // expected-error {{expected ',' or ')'}}
#pragma iopoly layout(V, 1, 0) extra        // expected-error {{extra tokens at the end of '#pragma iopoly layout'}}
#endif

void f(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      U[i][j] = V[j][i];
}
