//===- DiskMap.h - A set of disks as a bit map ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The disk map of a locality set (paper 1, section 5): bit d is set when the
// set touches disk d (or stripe-unit tag d). Any number of disks; words of
// 64 bits, so the operations the scheduler runs per decision (subset test,
// popcount, Hamming distance) cost a few instructions per 64 disks.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_SCHED_DISKMAP_H
#define IOPOLY_SCHED_DISKMAP_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iopoly::sched {

class DiskMap {
public:
  DiskMap() = default;
  /// From words: bit d of word d/64 is disk d.
  explicit DiskMap(std::vector<uint64_t> W) : Words(std::move(W)) { trim(); }
  /// From a list of disk numbers.
  static DiskMap of(std::initializer_list<unsigned> Disks) {
    DiskMap M;
    for (unsigned D : Disks)
      M.set(D);
    return M;
  }

  void set(unsigned D) {
    if (Words.size() <= D / 64)
      Words.resize(D / 64 + 1, 0);
    Words[D / 64] |= uint64_t(1) << (D % 64);
  }
  bool test(unsigned D) const { return D / 64 < Words.size() && (Words[D / 64] >> (D % 64) & 1); }
  bool empty() const { return Words.empty(); }
  /// Number of disks in the map.
  unsigned count() const {
    unsigned N = 0;
    for (uint64_t W : Words)
      N += static_cast<unsigned>(__builtin_popcountll(W));
    return N;
  }
  /// Every disk of this map is in \p Of.
  bool subsetOf(const DiskMap &Of) const {
    for (size_t I = 0; I < Words.size(); ++I)
      if (Words[I] & ~Of.word(I))
        return false;
    return true;
  }
  /// Disks in exactly one of the two maps.
  unsigned hamming(const DiskMap &O) const {
    unsigned N = 0;
    for (size_t I = 0, E = std::max(Words.size(), O.Words.size()); I < E; ++I)
      N += static_cast<unsigned>(__builtin_popcountll(word(I) ^ O.word(I)));
    return N;
  }
  DiskMap &operator|=(const DiskMap &O) {
    if (Words.size() < O.Words.size())
      Words.resize(O.Words.size(), 0);
    for (size_t I = 0; I < O.Words.size(); ++I)
      Words[I] |= O.Words[I];
    return *this;
  }
  bool operator==(const DiskMap &O) const { return hamming(O) == 0; }
  bool operator!=(const DiskMap &O) const { return !(*this == O); }
  uint64_t word(size_t I) const { return I < Words.size() ? Words[I] : 0; }
  size_t numWords() const { return Words.size(); }
  /// "0101" with disk 0 first, \p Disks characters (paper 1's bit strings).
  std::string str(unsigned Disks) const {
    std::string S;
    for (unsigned D = 0; D < Disks; ++D)
      S += test(D) ? '1' : '0';
    return S;
  }

private:
  void trim() {
    while (!Words.empty() && !Words.back())
      Words.pop_back();
  }
  std::vector<uint64_t> Words;
};

} // namespace iopoly::sched

#endif
