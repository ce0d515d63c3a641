//===- FoldMarkers.cpp - One marker per disk-resident pointer -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/FoldMarkers.h"
#include "Support/RuntimeABI.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"

#define DEBUG_TYPE "iopoly-fold-markers"

using namespace llvm;

STATISTIC(NumFolded, "Markers folded into an equal marker");

namespace iopoly {

namespace {

bool isMarker(const Value *V) {
  auto *C = dyn_cast<CallInst>(V);
  const Function *F = C ? C->getCalledFunction() : nullptr;
  return F && F->getName() == MarkerName;
}

} // namespace

PreservedAnalyses FoldMarkersPass::run(Function &F, FunctionAnalysisManager &AM) {
  SmallVector<CallInst *, 16> Markers;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (isMarker(&I))
        Markers.push_back(cast<CallInst>(&I));
  if (Markers.size() < 2)
    return PreservedAnalyses::all();
  bool Changed = false;
  // A marker of a marker: the inner one (its metadata names the array as
  // the outer scope did).
  for (CallInst *&M : Markers) {
    Value *Arg = M->getArgOperand(0);
    while (isMarker(Arg)) {
      M->replaceAllUsesWith(Arg);
      M->eraseFromParent();
      M = cast<CallInst>(Arg);
      Arg = M->getArgOperand(0);
      ++NumFolded;
      Changed = true;
    }
  }
  // Markers of the same pointer: the dominating one.
  DominatorTree &DT = AM.getResult<DominatorTreeAnalysis>(F);
  DenseMap<Value *, SmallVector<CallInst *, 4>> ByArg;
  SmallPtrSet<CallInst *, 16> Live;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (isMarker(&I))
        Live.insert(cast<CallInst>(&I));
  for (CallInst *M : Live)
    ByArg[M->getArgOperand(0)].push_back(M);
  for (auto &[Arg, Calls] : ByArg) {
    for (CallInst *M : Calls) {
      if (!Live.count(M))
        continue;
      for (CallInst *Other : Calls) {
        if (Other == M || !Live.count(Other) || !DT.dominates(M, Other))
          continue;
        Other->replaceAllUsesWith(M);
        Live.erase(Other);
        Other->eraseFromParent();
        ++NumFolded;
        Changed = true;
      }
    }
  }
  if (!Changed)
    return PreservedAnalyses::all();
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

} // namespace iopoly
