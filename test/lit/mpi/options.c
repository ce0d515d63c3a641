// Bad values of the mapping options are compile errors naming the option.
// RUN: not %clang_iopoly -c -fplugin-arg-iopoly-mpi=maybe %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MPI
// MPI: error: invalid value 'maybe' for iopoly option 'mpi' (expected on or off)
// RUN: not %clang_iopoly -c -fplugin-arg-iopoly-mapping=random %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAP
// MAP: error: invalid value 'random' for iopoly option 'mapping' (expected block, cyclic, intra or cache)
// RUN: not %clang_iopoly -c -fplugin-arg-iopoly-topology=%t.missing.json %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOPO
// TOPO: error: iopoly option 'topology': cannot read the topology file '{{.*}}missing.json'
// RUN: not %clang_iopoly -c -fplugin-arg-iopoly-map-bthres=150 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BT
// BT: error: iopoly option 'map-bthres' is a percentage (0 to 100)
// RUN: not %clang_iopoly -c -fplugin-arg-iopoly-mpi=on -fplugin-arg-iopoly-mode=off %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// OFF: error: -fplugin-arg-iopoly-mpi=on needs the disk-resident arrays in the runtime
// RUN: not %clang_iopoly -c -fplugin-arg-iopoly-mpi=on -fplugin-arg-iopoly-mode=dro-wp %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=DRO
// DRO: error: -fplugin-arg-iopoly-mpi=on goes with mode=lower only
// Without mpi=on the pragma is ignored, with a remark.
// RUN: %clang_iopoly -O2 -c -Rpass-missed=iopoly %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=IGN
// IGN: remark: '#pragma iopoly distribute' ignored: loops are distributed only with -fplugin-arg-iopoly-mpi=on
double A[64];
#pragma iopoly disk_resident(A)
void f(void) {
#pragma iopoly distribute
  for (int i = 0; i < 64; ++i)
    A[i] = i;
}
