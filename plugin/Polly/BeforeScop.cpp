//===- BeforeScop.cpp - A place for calls right before a SCoP ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Polly/BeforeScop.h"

#include "polly/ScopInfo.h"
#include "polly/ScopPass.h"

#include "llvm/Analysis/RegionInfo.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace iopoly {

Instruction *insertionPointBeforeScop(polly::Scop &S, polly::ScopStandardAnalysisResults &SAR) {
  Region &R = S.getRegion();
  BasicBlock *Entry = R.getEntry();
  BasicBlock *Entering = R.getEnteringBlock();
  if (!Entering)
    return nullptr;
  BasicBlock *Before = SplitEdge(Entering, Entry, &SAR.DT, &SAR.LI);
  if (!Before)
    return nullptr;
  Before->setName(Entry->getName() + ".iopoly_before");
  // Regions that ended at the entry end at the new block, which none of
  // them contains; it belongs to the innermost region around both.
  Region *Around = SAR.RI.getRegionFor(Entering);
  for (Region *P = Around; P && !P->isTopLevelRegion(); P = P->getParent())
    if (P->getExit() == Entry)
      P->replaceExit(Before);
  while (!Around->isTopLevelRegion() && !Around->contains(Entry))
    Around = Around->getParent();
  SAR.RI.setRegionFor(Before, Around);
  return Before->getTerminator();
}

} // namespace iopoly
