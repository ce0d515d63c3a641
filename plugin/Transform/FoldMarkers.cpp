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
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"

#define DEBUG_TYPE "iopoly-fold-markers"

using namespace llvm;

STATISTIC(NumFolded, "Markers folded into an equal marker");
STATISTIC(NumHoisted, "Markers moved up to their pointer's definition");

namespace iopoly {

namespace {

bool isMarker(const Value *V) {
  auto *C = dyn_cast<CallInst>(V);
  const Function *F = C ? C->getCalledFunction() : nullptr;
  return F && F->getName() == MarkerName;
}

/// The preheader of the outermost loop around \p M in which its pointer is
/// invariant, or null (not in a loop, or the pointer varies in the
/// innermost one, or that loop has no preheader).
BasicBlock *invariantPreheader(CallInst *M, LoopInfo &LI) {
  Value *Arg = M->getArgOperand(0);
  Loop *Outer = nullptr;
  for (Loop *L = LI.getLoopFor(M->getParent()); L && L->isLoopInvariant(Arg); L = L->getParentLoop())
    Outer = L;
  return Outer ? Outer->getLoopPreheader() : nullptr;
}

} // namespace

PreservedAnalyses FoldMarkersPass::run(Function &F, FunctionAnalysisManager &AM) {
  SmallVector<CallInst *, 16> Markers;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (isMarker(&I))
        Markers.push_back(cast<CallInst>(&I));
  if (Markers.empty())
    return PreservedAnalyses::all();
  bool Changed = false;
  // A marker is pure (memory(none), nounwind, willreturn) but not
  // speculatable, so LICM leaves it where the first access was, inside
  // loops under a guard (a kernel taking its arrays and sizes as
  // parameters: the marker of `p` sinks into `if (n > 0)` within the outer
  // loops). Polly then sees a base pointer that is not loop invariant and
  // the nest is no SCoP. Marking is the identity, so the marker moves out
  // of every loop its pointer is invariant in, as LICM would move a
  // speculatable call. A marker outside loops stays (between two nests,
  // it is where the caller's and an inlined callee's code meet).
  LoopInfo &LI = AM.getResult<LoopAnalysis>(F);
  for (CallInst *M : Markers)
    if (BasicBlock *Pre = invariantPreheader(M, LI)) {
      M->moveBefore(Pre->getTerminator());
      ++NumHoisted;
      Changed = true;
    }
  DominatorTree &DT = AM.getResult<DominatorTreeAnalysis>(F);
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
