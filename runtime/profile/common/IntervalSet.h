//===- IntervalSet.h - Sets of disjoint byte ranges --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Byte ranges [Lo, Hi) kept disjoint and coalesced: the dirty and valid
// bytes of a local store, the bytes a journal must replay. Insert, erase,
// covered/uncovered pieces of a query range in O(log n + pieces).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_COMMON_INTERVALSET_H
#define IOPOLY_PROFILE_COMMON_INTERVALSET_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace iopoly::prof {

struct Range {
  uint64_t Lo = 0, Hi = 0; ///< [Lo, Hi)
  uint64_t size() const { return Hi - Lo; }
  bool operator==(const Range &O) const { return Lo == O.Lo && Hi == O.Hi; }
};

class IntervalSet {
public:
  /// Adds [Lo, Hi), merging with touching ranges.
  void insert(uint64_t Lo, uint64_t Hi);
  /// Removes [Lo, Hi), splitting ranges that straddle its ends.
  void erase(uint64_t Lo, uint64_t Hi);
  /// True when every byte of [Lo, Hi) is in the set.
  bool covers(uint64_t Lo, uint64_t Hi) const;
  /// True when some byte of [Lo, Hi) is in the set.
  bool intersects(uint64_t Lo, uint64_t Hi) const;
  /// The parts of [Lo, Hi) in the set, in order.
  std::vector<Range> inside(uint64_t Lo, uint64_t Hi) const;
  /// The parts of [Lo, Hi) not in the set, in order.
  std::vector<Range> outside(uint64_t Lo, uint64_t Hi) const;
  std::vector<Range> ranges() const;
  uint64_t bytes() const;
  uint64_t maxEnd() const { return M.empty() ? 0 : M.rbegin()->second; }
  bool empty() const { return M.empty(); }
  size_t count() const { return M.size(); }
  void clear() { M.clear(); }

private:
  std::map<uint64_t, uint64_t> M; ///< Lo -> Hi, disjoint, not touching
};

} // namespace iopoly::prof

#endif
