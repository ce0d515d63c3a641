// The plugin reads sizes with the runtime's grammar (common/Sizes.cpp): the
// same text means the same bytes in -fplugin-arg-iopoly-stripe/buffer and in
// IOPOLY_STRIPE/IOPOLY_BUFFER.
// RUN: %clang_iopoly -fplugin-arg-iopoly-stripe=64KiB -fplugin-arg-iopoly-buffer=2GB -fsyntax-only %s
// RUN: %clang_iopoly -fplugin-arg-iopoly-stripe=4kb -fplugin-arg-iopoly-buffer=1T -fsyntax-only %s
// RUN: %clang_iopoly -fplugin-arg-iopoly-stripe=512B -fsyntax-only %s
// RUN: not %clang_iopoly -fplugin-arg-iopoly-stripe=0 -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not %clang_iopoly -fplugin-arg-iopoly-stripe=100 -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not %clang_iopoly -fplugin-arg-iopoly-buffer=99999999999999999999K -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=HUGE
int x;
// ZERO: error: invalid iopoly stripe size '0': size '0' must be positive
// ALIGN: error: invalid iopoly stripe size '100': stripe size 100 is not a multiple of 64 bytes
// HUGE: error: invalid iopoly buffer size '99999999999999999999K': {{.*}}too large
