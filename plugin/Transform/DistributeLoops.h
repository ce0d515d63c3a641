//===- DistributeLoops.h - Loops over MPI ranks (paper 2) -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// -fplugin-arg-iopoly-mpi=on. DistributeMarksPass (pipeline start) turns
// `#pragma iopoly distribute` markers into llvm.loop metadata on the loop
// that follows them. DistributeLoopsPass (after RankMappingPass at the
// vectorizer start) rewrites each planned loop
//     for (i = init; i != final; i += step) body
// into
//     for (p = 0, np = __iopoly_dist_begin(&d); p < np; ++p) {
//       __iopoly_dist_piece(&d, p, &first, &end);
//       for (i = init + first*step; i != init + end*step; i += step) body
//     }
//     __iopoly_dist_end(&d);
// with d the loop's descriptor (include/iopoly/dist.h): its iteration
// chunks and the table for the compile-time topology. The rewrite keeps the
// loop's body and inner loops as they are; it needs a canonical loop (one
// exit, from the latch, compared against a loop-invariant bound) with no
// other loop-carried scalar and no value used after the loop.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_DISTRIBUTELOOPS_H
#define IOPOLY_PLUGIN_TRANSFORM_DISTRIBUTELOOPS_H

#include "llvm/IR/PassManager.h"

namespace iopoly {

class DistributeMarksPass : public llvm::PassInfoMixin<DistributeMarksPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
};

class DistributeLoopsPass : public llvm::PassInfoMixin<DistributeLoopsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
};

} // namespace iopoly

#endif
