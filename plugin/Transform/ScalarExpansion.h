//===- ScalarExpansion.h - Loop-carried scalars given one element per iteration -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scalar that a loop nest writes and reads over and over (PolyBench
// symm's `temp2`, reset for every (i, j) and summed over k; deriche's
// recurrences `ym1`, `ym2`, reset for every row) orders every iteration of
// the nest after the one before: no loop inside it can be interchanged,
// and the column walks stay column walks. Here such a scalar gets its own
// small array in memory (not disk-resident), indexed by the loops around
// its uses, so that each iteration of those loops has its own copy:
// `temp2` becomes `T[j]`, and the k loop can move outside the j loop.
//
// Applied only when it provably changes nothing the program computes: every
// read of the scalar must take its value from the same write as before
// (isl's dataflow analysis in the original order, before and after), no
// read may see a value from before the loops, and the scalar must not be
// used after them. Sums keep their order: each copy is summed exactly as
// the scalar was. dro-l and dro-wp only; -fplugin-arg-iopoly-expand-scalars=off
// turns it off.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_SCALAREXPANSION_H
#define IOPOLY_PLUGIN_TRANSFORM_SCALAREXPANSION_H

#include "polly/ScopPass.h"

namespace iopoly {

struct ScalarExpansionPass : llvm::PassInfoMixin<ScalarExpansionPass> {
  llvm::PreservedAnalyses run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                              polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U);
};

} // namespace iopoly

#endif
