//===- CLO.cpp - mode=clo: Polly's isl scheduler, with a remark ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/CLO.h"

#include "polly/ScheduleOptimizer.h"
#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"

#define DEBUG_TYPE "iopoly"

using namespace llvm;

namespace iopoly {

PreservedAnalyses CLOPass::run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                               polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U) {
  std::string Before = polly::stringFromIslObj(S.getScheduleTree());
  PreservedAnalyses PA = polly::IslScheduleOptimizerPass().run(S, SAM, SAR, U);
  bool Changed = polly::stringFromIslObj(S.getScheduleTree()) != Before;
  DebugLoc Loc;
  for (BasicBlock *BB : S.getRegion().blocks())
    for (Instruction &I : *BB)
      if (!Loc && I.getDebugLoc())
        Loc = I.getDebugLoc();
  OptimizationRemarkEmitter ORE(&S.getFunction());
  if (Changed)
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "CLO", Loc, S.getEntry())
             << "clo: Polly's isl scheduler applied a new schedule (tiling, interchange or fusion) to the loops here";
    });
  else
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "CLONotApplied", Loc, S.getEntry())
             << "clo: Polly's isl scheduler kept the original schedule of the loops here";
    });
  return PA;
}

} // namespace iopoly
