//===- WindowPool.cpp - The bounded window table of a function -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/WindowPool.h"
#include "Support/RuntimeABI.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"

#include <vector>

using namespace llvm;

namespace iopoly {

void WindowPool::reserveStrip(unsigned Reads, unsigned Writes) {
  assert(!StripT && Reads + Writes <= StripShare);
  StripR = Reads;
  StripW = Writes;
  if (Reads + Writes)
    StripT = ABI.createWindows(F, Reads + Writes, /*Pinned=*/true, "iopoly.strip.windows");
}

void WindowPool::reserveSites(unsigned Reads, unsigned Writes) {
  assert(!SiteT && Reads + Writes <= free());
  SiteR = Reads;
  SiteW = Writes;
  if (Reads + Writes)
    SiteT = ABI.createWindows(F, Reads + Writes, /*Pinned=*/false, "iopoly.windows");
}

unsigned WindowPool::free() const { return MaxWindows - stripCount() - siteCount(); }

Value *WindowPool::use(IRBuilderBase &B, unsigned Table, unsigned K) {
  Uses[{Table, K}].insert(B.GetInsertBlock());
  return ABI.window(B, table(Table), K);
}

// Reading windows first, then writing ones.
Value *WindowPool::strip(IRBuilderBase &B, unsigned K, bool Write) {
  assert(Write ? StripW : StripR);
  return use(B, 0, Write ? StripR + K % StripW : K % StripR);
}

Value *WindowPool::site(IRBuilderBase &B, unsigned K, bool Write) {
  assert(Write ? SiteW : SiteR);
  return use(B, 1, Write ? SiteR + K % SiteW : K % SiteR);
}

void WindowPool::releaseAtExits() {
  if (Uses.empty())
    return;
  // A window used inside a loop nest lets go of its stripes when the nest
  // is left, so that the stripes of finished loops do not stay pinned (and
  // shrink the buffer) for the rest of the function.
  DominatorTree DT(F);
  LoopInfo LI(DT);
  std::map<BasicBlock *, std::set<WindowKey>> AtExit;
  for (auto &KV : Uses) {
    std::set<Loop *> Outer;
    for (BasicBlock *BB : KV.second)
      if (Loop *L = LI.getLoopFor(BB)) {
        while (L->getParentLoop())
          L = L->getParentLoop();
        Outer.insert(L);
      }
    for (Loop *L : Outer) {
      SmallVector<BasicBlock *, 4> Exits;
      L->getUniqueExitBlocks(Exits);
      for (BasicBlock *E : Exits)
        if (!E->isEHPad())
          AtExit[E].insert(KV.first);
    }
  }
  SmallVector<ReturnInst *, 4> Returns;
  for (BasicBlock &BB : F)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator()))
      Returns.push_back(R);
  IRBuilder<> B(F.getContext());
  // In the function's block order, not the map's (pointer) order.
  std::vector<BasicBlock *> Exits;
  for (BasicBlock &BB : F)
    if (AtExit.count(&BB))
      Exits.push_back(&BB);
  for (BasicBlock *E : Exits) {
    B.SetInsertPoint(E, E->getFirstInsertionPt());
    for (const WindowKey &TK : AtExit[E])
      ABI.releaseIfHeld(B, ABI.window(B, table(TK.first), TK.second));
  }
  for (ReturnInst *R : Returns) {
    // Before a musttail call, which must stay right before its return.
    Instruction *At = R;
    if (auto *CI = dyn_cast_or_null<CallInst>(R->getPrevNode()))
      if (CI->isMustTailCall())
        At = CI;
    B.SetInsertPoint(At);
    for (auto &KV : Uses)
      ABI.releaseIfHeld(B, ABI.window(B, table(KV.first.first), KV.first.second));
  }
}

} // namespace iopoly
