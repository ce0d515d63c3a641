//===- Stats.cpp - Counters of the stripe buffer and the disks -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Stats.h"

namespace iopoly {

SparseBits *Stats::fetchedBits(const std::string &Name, size_t NumStripes) {
  SparseBits &Bits = Fetched[Name];
  Bits.reserve(NumStripes);
  return &Bits;
}

uint64_t Stats::distinctStripes() const {
  uint64_t N = 0;
  for (const auto &KV : Fetched)
    N += KV.second.countAllocated();
  return N;
}

uint64_t Stats::distinctStripes(const std::string &Name) const {
  auto It = Fetched.find(Name);
  return It == Fetched.end() ? 0 : It->second.countAllocated();
}

ArrayCounters *Stats::arrayCounters(const std::string &Name) { return &PerArray[Name]; }

void ArrayCounters::countSite(const void *Site) {
  SiteFetches *Min = &Sites[0];
  for (SiteFetches &S : Sites) {
    if (S.Site == Site && S.Fetches) {
      ++S.Fetches;
      return;
    }
    if (S.Fetches < Min->Fetches)
      Min = &S;
  }
  // Space-saving: a new site replaces the least counted one and inherits
  // its count, so a site that fetches most is never lost for long.
  Min->Site = Site;
  ++Min->Fetches;
}

const void *ArrayCounters::worstSite() const {
  const SiteFetches *Best = nullptr;
  for (const SiteFetches &S : Sites)
    if (S.Fetches && S.Site && (!Best || S.Fetches > Best->Fetches))
      Best = &S;
  return Best ? Best->Site : nullptr;
}

void Stats::reset() {
  size_t Disks = C.PerDisk.size();
  C = Counters();
  C.PerDisk.resize(Disks);
  IoNanos = 0;
  for (auto &KV : Fetched)
    KV.second.reset(/*AllSet=*/false);
  for (auto &KV : PerArray) {
    uint64_t Size = KV.second.SizeBytes;
    KV.second = ArrayCounters();
    KV.second.SizeBytes = Size;
  }
}

} // namespace iopoly
