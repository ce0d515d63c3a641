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

void Stats::reset() {
  size_t Disks = C.PerDisk.size();
  C = Counters();
  C.PerDisk.resize(Disks);
  IoNanos = 0;
  for (auto &KV : Fetched)
    KV.second.reset(/*AllSet=*/false);
}

} // namespace iopoly
