// -Rpass=iopoly says which arrays were lowered in which function.
// RUN: %clang_iopoly -O2 -c -Rpass=iopoly %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: lowered {{[0-9]+}} loads, {{[0-9]+}} stores and 0 memset/memcpys onto the stripe buffer (disk-resident 'U', 'V'); strip-mined {{[0-9]+}} loop{{s?}} ({{[0-9]+}} access{{(es)?}} translated once per strip); {{[0-9]+}} window{{s?}} in the frame
#define N 256
double U[N][N], V[N][N];
#pragma iopoly disk_resident(U, V)
void transpose(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      U[i][j] = 2.0 * V[j][i];
}
