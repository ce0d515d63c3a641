//===- ElementSizeGuard.h - SCoPs Polly models wrongly are left alone -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Polly gives a multi-dimensional array the dimension sizes its typed
// accesses show (`float C[128][109]`: rows of 109) and, when another access
// in the same SCoP uses a smaller element (a memcpy or memset counts in
// bytes; `*(char *)&C[i][j]` too), shrinks the element type without
// rescaling those sizes: C becomes `i8 [*][109]`, rows of 109 bytes. Every
// access is then placed in the wrong row and the dependences are wrong, so
// any new schedule may compute a different result (clang -O2 -mllvm -polly
// does, on test/lit/polly/mixed-element-sizes.c).
//
// This pass finds such arrays right after the SCoP is built and makes the
// SCoP's run-time condition false (Polly's own invalidate), so the original
// loops run; the passes after it see an infeasible SCoP and skip it
// (scopIsLeftAlone). A remark names the array and the two element sizes.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_POLLY_ELEMENTSIZEGUARD_H
#define IOPOLY_PLUGIN_POLLY_ELEMENTSIZEGUARD_H

#include "polly/ScopPass.h"

namespace iopoly {

struct ElementSizeGuardPass : llvm::PassInfoMixin<ElementSizeGuardPass> {
  llvm::PreservedAnalyses run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                              polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U);
};

/// Whether an earlier pass (ElementSizeGuardPass) gave up on \p S: its
/// run-time condition is false, the original code runs, nothing is to be
/// planned for it.
bool scopIsLeftAlone(const polly::Scop &S);

} // namespace iopoly

#endif
