//===- IntervalSet.cpp - Sets of disjoint byte ranges ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "IntervalSet.h"

#include <algorithm>

namespace iopoly::prof {

void IntervalSet::insert(uint64_t Lo, uint64_t Hi) {
  if (Lo >= Hi)
    return;
  auto It = M.upper_bound(Lo);
  if (It != M.begin()) {
    auto Prev = std::prev(It);
    if (Prev->second >= Lo) { // overlaps or touches on the left
      Lo = Prev->first;
      Hi = std::max(Hi, Prev->second);
      It = M.erase(Prev);
    }
  }
  while (It != M.end() && It->first <= Hi) {
    Hi = std::max(Hi, It->second);
    It = M.erase(It);
  }
  M.emplace(Lo, Hi);
}

void IntervalSet::erase(uint64_t Lo, uint64_t Hi) {
  if (Lo >= Hi)
    return;
  auto It = M.upper_bound(Lo);
  if (It != M.begin())
    --It;
  while (It != M.end() && It->first < Hi) {
    uint64_t A = It->first, B = It->second;
    if (B <= Lo) {
      ++It;
      continue;
    }
    It = M.erase(It);
    if (A < Lo)
      M.emplace(A, Lo);
    if (B > Hi) {
      M.emplace(Hi, B);
      break;
    }
  }
}

bool IntervalSet::covers(uint64_t Lo, uint64_t Hi) const {
  if (Lo >= Hi)
    return true;
  auto It = M.upper_bound(Lo);
  if (It == M.begin())
    return false;
  --It;
  return It->first <= Lo && It->second >= Hi;
}

bool IntervalSet::intersects(uint64_t Lo, uint64_t Hi) const {
  if (Lo >= Hi)
    return false;
  auto It = M.upper_bound(Lo);
  if (It != M.begin() && std::prev(It)->second > Lo)
    return true;
  return It != M.end() && It->first < Hi;
}

std::vector<Range> IntervalSet::inside(uint64_t Lo, uint64_t Hi) const {
  std::vector<Range> Out;
  if (Lo >= Hi)
    return Out;
  auto It = M.upper_bound(Lo);
  if (It != M.begin())
    --It;
  for (; It != M.end() && It->first < Hi; ++It) {
    uint64_t A = std::max(Lo, It->first), B = std::min(Hi, It->second);
    if (A < B)
      Out.push_back({A, B});
  }
  return Out;
}

std::vector<Range> IntervalSet::outside(uint64_t Lo, uint64_t Hi) const {
  std::vector<Range> Out;
  uint64_t Pos = Lo;
  for (const Range &R : inside(Lo, Hi)) {
    if (R.Lo > Pos)
      Out.push_back({Pos, R.Lo});
    Pos = R.Hi;
  }
  if (Pos < Hi)
    Out.push_back({Pos, Hi});
  return Out;
}

std::vector<Range> IntervalSet::ranges() const {
  std::vector<Range> Out;
  Out.reserve(M.size());
  for (auto &[A, B] : M)
    Out.push_back({A, B});
  return Out;
}

uint64_t IntervalSet::bytes() const {
  uint64_t N = 0;
  for (auto &[A, B] : M)
    N += B - A;
  return N;
}

} // namespace iopoly::prof
