//===- CLO.h - mode=clo: Polly's isl scheduler, with a remark ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The conventional locality optimization the disk-reuse modes are compared
// with: Polly's own isl scheduler (tiling, interchange, fusion). Runs it
// and says, as the dro modes do, whether it changed the schedule of a SCoP
// (-Rpass=iopoly) or kept it (-Rpass-missed=iopoly), so that tests and
// users can see that clo did something.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_CLO_H
#define IOPOLY_PLUGIN_TRANSFORM_CLO_H

#include "polly/ScopPass.h"

namespace iopoly {

/// Polly's isl scheduler on \p S, then Polly's register tiling on the point
/// bands of three or more loops (not in a SCoP with a stencil); a remark
/// that starts with \p Why says whether the schedule changed.
llvm::PreservedAnalyses applyPollySchedule(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                           polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U,
                                           const char *Why);

/// The schedule applyPollySchedule would give \p S (null when Polly's
/// scheduler keeps the original one); \p S keeps its own.
isl::schedule cloSchedule(polly::Scop &S, polly::ScopAnalysisManager &SAM, polly::ScopStandardAnalysisResults &SAR,
                          polly::SPMUpdater &U);

struct CLOPass : llvm::PassInfoMixin<CLOPass> {
  llvm::PreservedAnalyses run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                              polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U);
};

} // namespace iopoly

#endif
