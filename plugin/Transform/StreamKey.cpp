//===- StreamKey.cpp - Which accesses walk the same stream -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/StreamKey.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace llvm;

namespace iopoly {

std::pair<const SCEV *, int64_t> splitConstant(ScalarEvolution &SE, const SCEV *S) {
  if (auto *Add = dyn_cast<SCEVAddExpr>(S)) {
    // Constants sort first among the operands of an add.
    if (auto *C = dyn_cast<SCEVConstant>(Add->getOperand(0))) {
      if (C->getAPInt().getSignificantBits() > 48)
        return {S, 0};
      SmallVector<const SCEV *, 4> Rest(Add->operands().begin() + 1, Add->operands().end());
      return {SE.getAddExpr(Rest), C->getAPInt().getSExtValue()};
    }
  }
  if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
    auto [Base, Off] = splitConstant(SE, AR->getStart());
    if (Off)
      return {SE.getAddRecExpr(Base, AR->getStepRecurrence(SE), AR->getLoop(), SCEV::FlagAnyWrap), Off};
  }
  return {S, 0};
}

StreamKey streamKeyOf(ScalarEvolution &SE, const Value *Ptr, int64_t Tag) {
  auto [Base, Off] = splitConstant(SE, SE.getSCEV(const_cast<Value *>(Ptr)));
  return {Base, Off, Tag};
}

std::vector<unsigned> groupStreamKeys(const std::vector<StreamKey> &Keys) {
  // Items of one (base, tag) in order of offset; a stream starts wherever
  // an offset lies StreamSpan or more past the first offset of the stream.
  std::map<std::pair<const SCEV *, int64_t>, std::vector<size_t>> Buckets;
  for (size_t K = 0; K < Keys.size(); ++K)
    Buckets[{Keys[K].Base, Keys[K].Tag}].push_back(K);
  std::vector<size_t> StreamOf(Keys.size()), FirstItem;
  for (auto &KV : Buckets) {
    std::vector<size_t> &Items = KV.second;
    std::stable_sort(Items.begin(), Items.end(),
                     [&](size_t A, size_t B) { return Keys[A].Offset < Keys[B].Offset; });
    int64_t Start = 0;
    for (size_t N = 0; N < Items.size(); ++N) {
      int64_t Off = Keys[Items[N]].Offset;
      if (N == 0 || Off - Start >= StreamSpan) {
        Start = Off;
        FirstItem.push_back(Items[N]);
      }
      StreamOf[Items[N]] = FirstItem.size() - 1;
    }
  }
  // Number the streams in the order of their first item in the program.
  std::vector<size_t> FirstOfStream(FirstItem.size(), SIZE_MAX);
  for (size_t K = 0; K < Keys.size(); ++K)
    FirstOfStream[StreamOf[K]] = std::min(FirstOfStream[StreamOf[K]], K);
  std::vector<size_t> Order(FirstItem.size());
  for (size_t S = 0; S < Order.size(); ++S)
    Order[S] = S;
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) { return FirstOfStream[A] < FirstOfStream[B]; });
  std::vector<unsigned> Rank(Order.size());
  for (size_t R = 0; R < Order.size(); ++R)
    Rank[Order[R]] = static_cast<unsigned>(R);
  std::vector<unsigned> Out(Keys.size());
  for (size_t K = 0; K < Keys.size(); ++K)
    Out[K] = Rank[StreamOf[K]];
  return Out;
}

} // namespace iopoly
