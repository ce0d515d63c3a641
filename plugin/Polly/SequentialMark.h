//===- SequentialMark.h - Loops Polly must not outline as parallel --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Where Polly outlines the loops it proves parallel (threads=on), some
// versions of a SCoP must stay sequential: Polly's own schedule in tiles
// (its parallel code generation crashed on PolyBench deriche and adi in
// IslNodeBuilder::createForParallel, and their tiles have no disk map for
// the task scheduler anyway). A mark node above such a version's schedule
// says so; before code generation the AST's loops under it lose Polly's
// "execute in parallel" flag and are generated as ordinary loops.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_POLLY_SEQUENTIALMARK_H
#define IOPOLY_PLUGIN_POLLY_SEQUENTIALMARK_H

#include "isl/isl-noexceptions.h"

namespace polly {
class IslAstInfo;
} // namespace polly

namespace iopoly {

/// \p Schedule with a mark above everything below its domain node: none of
/// its loops is outlined by Polly's parallel code generation.
isl::schedule markSequential(isl::schedule Schedule);

/// Clears Polly's outermost-parallel flag on every loop of \p AI's AST that
/// lies under a markSequential mark. Returns how many loops it cleared.
unsigned keepMarkedLoopsSequential(polly::IslAstInfo &AI);

} // namespace iopoly

#endif
