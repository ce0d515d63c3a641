//===- UnmodelledLoops.h - Loops Polly has no model of, and why -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The Polly modes (clo, dro-l, dro-wp) can only reorder loops that Polly
// models as a SCoP. A loop over a disk-resident array that no SCoP holds
// keeps its order, and its user should hear why in the terms of the source:
// the call, the subscript, the bound, the early exit, the memcpy. This pass
// (analysis and remarks only) runs after Polly's preparation and before the
// SCoP passes, reads Polly's detection log and the SCoPs Polly built, and
// prints one -Rpass-missed=iopoly remark per such loop nest.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_UNMODELLEDLOOPS_H
#define IOPOLY_PLUGIN_ANALYSIS_UNMODELLEDLOOPS_H

#include "llvm/IR/PassManager.h"

namespace iopoly {

struct UnmodelledLoopsPass : llvm::PassInfoMixin<UnmodelledLoopsPass> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
};

} // namespace iopoly

#endif
