//===- Lowered.h - Runtime side of plugin-lowered code ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The entry points themselves are declared in include/iopoly/abi.h; this is
// what the rest of the runtime needs from that layer.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_LOWERED_H
#define IOPOLY_RUNTIME_LOWERED_H

struct iopoly_array;

namespace iopoly {

/// Releases the stripes of \p A held by the calling thread's windows, so
/// that the array can be closed (iopoly_free, free) from a function that
/// accessed it outside any loop.
void releaseThreadWindows(const iopoly_array *A);

} // namespace iopoly

#endif
