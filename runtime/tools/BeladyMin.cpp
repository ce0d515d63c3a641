//===- BeladyMin.cpp - Belady's MIN on a stripe reference string -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "tools/BeladyMin.h"

#include <cstddef>
#include <limits>
#include <queue>
#include <unordered_map>
#include <utility>

namespace iopoly {

MinResult beladyMin(const std::vector<uint64_t> &Refs, uint64_t Frames) {
  MinResult R;
  R.References = Refs.size();
  constexpr uint64_t Never = std::numeric_limits<uint64_t>::max();
  // Next[i]: the position of the next reference to Refs[i].
  std::vector<uint64_t> Next(Refs.size(), Never);
  {
    std::unordered_map<uint64_t, uint64_t> Later;
    for (std::size_t I = Refs.size(); I-- > 0;) {
      auto It = Later.find(Refs[I]);
      if (It != Later.end()) {
        Next[I] = It->second;
        It->second = I;
      } else {
        Later.emplace(Refs[I], I);
      }
    }
  }
  // Resident stripes with the position of their next use; the heap holds
  // (next use, stripe) and is cleaned lazily: an entry is current only if
  // it matches NextUse.
  std::unordered_map<uint64_t, uint64_t> NextUse;
  std::unordered_map<uint64_t, bool> Seen;
  std::priority_queue<std::pair<uint64_t, uint64_t>> Heap;
  for (std::size_t I = 0; I < Refs.size(); ++I) {
    uint64_t K = Refs[I];
    if (Seen.emplace(K, true).second)
      ++R.Distinct;
    auto It = NextUse.find(K);
    if (It == NextUse.end()) {
      ++R.Misses;
      if (Frames == 0)
        continue;
      while (NextUse.size() >= Frames) {
        auto [When, Victim] = Heap.top();
        Heap.pop();
        auto V = NextUse.find(Victim);
        if (V != NextUse.end() && V->second == When)
          NextUse.erase(V);
      }
      It = NextUse.emplace(K, 0).first;
    }
    It->second = Next[I];
    Heap.push({Next[I], K});
  }
  return R;
}

} // namespace iopoly
