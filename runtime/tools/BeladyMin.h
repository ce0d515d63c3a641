//===- BeladyMin.h - Belady's MIN on a stripe reference string --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The fewest misses any replacement policy can have on a given sequence of
// stripe references with a buffer of a given number of frames (Belady's
// MIN: on a miss with a full buffer, drop the stripe used again farthest in
// the future). The floor beside every measured run (iopoly-trace --min).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_TOOLS_BELADYMIN_H
#define IOPOLY_RUNTIME_TOOLS_BELADYMIN_H

#include <cstdint>
#include <vector>

namespace iopoly {

struct MinResult {
  uint64_t References = 0;
  uint64_t Distinct = 0; ///< distinct stripes referenced (first references)
  uint64_t Misses = 0;   ///< MIN's misses, first references included
  /// Misses that must read the disk: all but the first reference of each
  /// stripe (arrays created by the run start as zeros and need no read).
  uint64_t Refetches() const { return Misses - Distinct; }
};

/// Belady's MIN over \p Refs (any 64-bit stripe keys) with \p Frames frames.
MinResult beladyMin(const std::vector<uint64_t> &Refs, uint64_t Frames);

} // namespace iopoly

#endif
