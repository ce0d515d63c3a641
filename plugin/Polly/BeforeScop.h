//===- BeforeScop.h - A place for calls right before a SCoP --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Code that must run right before a SCoP's loops (the run-time version
// choice where threads=on tells the task scheduler which region starts)
// cannot go into the block that enters the SCoP: when the SCoP before it
// ends there, that block is in the earlier SCoP's region, a call in it
// makes the region invalid, and Polly drops the earlier SCoP when it
// verifies its regions again after code generation (PolyBench 3mm: the
// first of its three products kept its order). So the entering edge is split
// and the new block becomes the exit of every region that ended at the
// SCoP's entry, as Polly's own region simplification does.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_POLLY_BEFORESCOP_H
#define IOPOLY_PLUGIN_POLLY_BEFORESCOP_H

namespace llvm {
class Instruction;
} // namespace llvm

namespace polly {
class Scop;
struct ScopStandardAnalysisResults;
} // namespace polly

namespace iopoly {

/// An insertion point that runs right before \p S's loops, in a block of no
/// other SCoP's region; null when \p S has no single entering block.
llvm::Instruction *insertionPointBeforeScop(polly::Scop &S, polly::ScopStandardAnalysisResults &SAR);

} // namespace iopoly

#endif
