//===- Stats.cpp - Counters of the stripe buffer and the disks -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Stats.h"

namespace iopoly {

std::vector<unsigned long long> *Stats::fetchedBits(const std::string &Name,
                                                    size_t NumStripes) {
  auto &Bits = Fetched[Name];
  size_t Words = (NumStripes + 63) / 64;
  if (Bits.size() < Words)
    Bits.resize(Words, 0);
  return &Bits;
}

uint64_t Stats::distinctStripes() const {
  uint64_t N = 0;
  for (const auto &KV : Fetched)
    for (unsigned long long W : KV.second)
      N += static_cast<uint64_t>(__builtin_popcountll(W));
  return N;
}

void Stats::reset() {
  size_t Disks = C.PerDisk.size();
  C = Counters();
  C.PerDisk.resize(Disks);
  IoNanos = 0;
  for (auto &KV : Fetched)
    std::fill(KV.second.begin(), KV.second.end(), 0ULL);
}

} // namespace iopoly
