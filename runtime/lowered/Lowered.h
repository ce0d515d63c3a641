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

/// Releases every window of the calling thread that holds stripes: at the
/// end of a task (runtime/sched/ParallelLoop.cpp), whose strips are over,
/// so that a thread waiting for its next task pins nothing.
void releaseAllThreadWindows();

} // namespace iopoly

#endif
