//===- ElementSizeGuard.cpp - SCoPs Polly models wrongly are left alone ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Polly/ElementSizeGuard.h"
#include "Analysis/LocalitySets.h"

#include "polly/ScopInfo.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IntrinsicInst.h"

#define DEBUG_TYPE "iopoly"

using namespace llvm;

namespace iopoly {

bool scopIsLeftAlone(const polly::Scop &S) { return !S.hasFeasibleRuntimeContext(); }

/// Whether some access to \p SAI in \p S is a memcpy, memmove or memset
/// (Polly models those as byte accesses).
static bool hasMemIntrinsicAccess(polly::Scop &S, const polly::ScopArrayInfo *SAI) {
  for (polly::ScopStmt &Stmt : S)
    for (polly::MemoryAccess *MA : Stmt)
      if (MA->getOriginalScopArrayInfo() == SAI && MA->isMemoryIntrinsic())
        return true;
  return false;
}

PreservedAnalyses ElementSizeGuardPass::run(polly::Scop &S, polly::ScopAnalysisManager &,
                                            polly::ScopStandardAnalysisResults &, polly::SPMUpdater &) {
  const DataLayout &DL = S.getFunction().getDataLayout();
  for (polly::ScopStmt &Stmt : S)
    for (polly::MemoryAccess *MA : Stmt) {
      const polly::ScopArrayInfo *SAI = MA->getOriginalScopArrayInfo();
      if (!MA->isOriginalArrayKind() || SAI->getNumberOfDimensions() < 2)
        continue;
      // The array's element is the smallest any access uses; this access
      // uses a larger one.
      uint64_t ArrayBytes = SAI->getElemSizeInBytes();
      uint64_t AccessBytes = DL.getTypeAllocSize(MA->getElementType());
      if (AccessBytes == ArrayBytes)
        continue;
      Instruction *I = MA->getAccessInstruction();
      DebugLoc Loc = I ? I->getDebugLoc() : DebugLoc();
      BasicBlock *BB = I ? I->getParent() : S.getEntry();
      OptimizationRemarkEmitter ORE(&S.getFunction());
      ORE.emit([&] {
        OptimizationRemarkMissed R(DEBUG_TYPE, "MixedElementSizes", Loc, BB);
        R << "left in its original order: the multi-dimensional array '" << userArrayName(SAI)
          << "' is accessed here in elements of " << ore::NV("AccessBytes", AccessBytes)
          << " bytes and elsewhere in these loops in elements of " << ore::NV("ElementBytes", ArrayBytes)
          << (ArrayBytes == 1 ? " byte" : " bytes");
        if (hasMemIntrinsicAccess(S, SAI))
          R << " (a memcpy or memset counts bytes)";
        R << "; Polly would keep the rows it counted in the larger elements, misplace the accesses and get "
             "the dependences wrong";
        return R;
      });
      S.invalidate(polly::DELINEARIZATION, Loc, I ? BB : nullptr);
      return PreservedAnalyses::all();
    }
  return PreservedAnalyses::all();
}

} // namespace iopoly
