// Unknown plugin arguments and bad values are compile errors.
// RUN: not %clang_iopoly -fplugin-arg-iopoly-nonsense=1 -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %clang_iopoly -fplugin-arg-iopoly-mode=fast -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not %clang_iopoly -fplugin-arg-iopoly-stripe=12Q -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=STRIPE
// RUN: not %clang_iopoly -fplugin-arg-iopoly-disks=0 -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=DISKS
// RUN: not %clang_iopoly -fplugin-arg-iopoly-buffer=lots -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=BUFFER
// RUN: not %clang_iopoly -fplugin-arg-iopoly-versions=some -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=VERSIONS
// RUN: %clang_iopoly -fplugin-arg-iopoly-versions=all -fsyntax-only %s
// RUN: %clang_iopoly -fplugin-arg-iopoly-mode=off -fplugin-arg-iopoly-stripe=1M -fplugin-arg-iopoly-disks=16 -fsyntax-only %s

// UNKNOWN: error: unknown iopoly plugin argument 'nonsense=1'
// MODE: error: invalid value 'fast' for iopoly option 'mode'
// STRIPE: error: invalid iopoly stripe size '12Q'
// BUFFER: error: invalid iopoly buffer size 'lots'
// DISKS: error: iopoly option 'disks' must be at least 1
// VERSIONS: error: invalid value 'some' for iopoly option 'versions' (expected plausible or all)
int x;
