//===- FoldMarkers.h - One marker per disk-resident pointer ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// After inlining, a pointer named by pragmas in both a caller and its callee
// reaches the loops through two markers: __iopoly_mark(__iopoly_mark(p)) in
// the callee's body, __iopoly_mark(p) in the caller's. Polly sees two base
// pointers for one array, cannot prove they do not alias, and guards the
// optimized code with a run-time check that fails (they are the same
// array), so the original loops run. Marking is idempotent: a marker of a
// marker is folded into the inner one, and markers of the same pointer are
// merged where one dominates the other. First, every marker moves out of
// the loops its pointer is invariant in: left where an access was, under a
// guard inside the loops, it made the base pointer vary in the loop and the
// nest no SCoP. Runs before Polly's SCoP detection.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_FOLDMARKERS_H
#define IOPOLY_PLUGIN_TRANSFORM_FOLDMARKERS_H

#include "llvm/IR/PassManager.h"

namespace iopoly {

struct FoldMarkersPass : llvm::PassInfoMixin<FoldMarkersPass> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace iopoly

#endif
