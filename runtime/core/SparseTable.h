//===- SparseTable.h - Per-stripe tables that cost what is used -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Per-stripe state (which frame holds a stripe, which stripes were fetched,
// which are still all zero on disk) must not cost memory in proportion to
// an array's extent: a 2^52-byte array has 2^36 stripes of 64 KiB, and a
// table of them would be gigabytes before the first access. SparseTable is
// a radix tree of 1024-entry nodes whose depth follows the extent; only the
// nodes on the paths of indices that were set exist. A lookup is one load
// per level (two up to 2^20 entries, i.e. 64 GiB of 64 KiB stripes).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_SPARSETABLE_H
#define IOPOLY_RUNTIME_SPARSETABLE_H

#include <algorithm>
#include <cstdint>

namespace iopoly {

template <typename T> class SparseTable {
public:
  static constexpr unsigned Bits = 10;
  static constexpr uint64_t Fan = uint64_t(1) << Bits;

  /// Indices [0, Extent) start with the value \p Default.
  explicit SparseTable(uint64_t Extent = 1, T Default = T()) : Default(Default) { reserve(Extent); }
  ~SparseTable() { destroy(Root, Levels); }
  SparseTable(const SparseTable &) = delete;
  SparseTable &operator=(const SparseTable &) = delete;
  SparseTable(SparseTable &&O) noexcept { *this = std::move(O); }
  SparseTable &operator=(SparseTable &&O) noexcept {
    if (this != &O) {
      destroy(Root, Levels);
      Root = O.Root, Levels = O.Levels, Default = O.Default;
      O.Root = nullptr, O.Levels = 1;
    }
    return *this;
  }

  /// Makes indices up to \p Extent valid (adds levels on top; cheap).
  void reserve(uint64_t Extent) {
    while (Levels < 7 && capacityBits() < 64 && (uint64_t(1) << capacityBits()) < Extent) {
      if (Root) {
        void **Top = newInner();
        Top[0] = Root;
        Root = Top;
      }
      ++Levels;
    }
  }

  T get(uint64_t I) const {
    const void *N = Root;
    for (unsigned L = Levels - 1; L > 0; --L) {
      if (!N)
        return Default;
      N = static_cast<void *const *>(N)[(I >> (L * Bits)) & (Fan - 1)];
    }
    return N ? static_cast<const T *>(N)[I & (Fan - 1)] : Default;
  }

  /// The entry of \p I, allocating its path (entries start as Default).
  T &ref(uint64_t I) {
    void **Slot = &Root;
    for (unsigned L = Levels - 1; L > 0; --L) {
      if (!*Slot)
        *Slot = newInner();
      Slot = &static_cast<void **>(*Slot)[(I >> (L * Bits)) & (Fan - 1)];
    }
    if (!*Slot) {
      T *Leaf = new T[Fan];
      std::fill(Leaf, Leaf + Fan, Default);
      *Slot = Leaf;
    }
    return static_cast<T *>(*Slot)[I & (Fan - 1)];
  }

  void set(uint64_t I, T V) {
    if (V == Default && !leafOf(I))
      return; // nothing to allocate for a default value
    ref(I) = V;
  }

  /// Calls \p F(value) for every entry of every allocated leaf.
  template <typename Fn> void forEachAllocated(Fn F) const { visit(Root, Levels, F); }

  /// Every entry back to \p NewDefault (frees all nodes).
  void clear(T NewDefault) {
    destroy(Root, Levels);
    Root = nullptr;
    Default = NewDefault;
  }

private:
  unsigned capacityBits() const { return Levels * Bits; }
  static void **newInner() { return new void *[Fan](); }
  const T *leafOf(uint64_t I) const {
    const void *N = Root;
    for (unsigned L = Levels - 1; L > 0 && N; --L)
      N = static_cast<void *const *>(N)[(I >> (L * Bits)) & (Fan - 1)];
    return static_cast<const T *>(N);
  }
  static void destroy(void *N, unsigned Level) {
    if (!N)
      return;
    if (Level == 1) {
      delete[] static_cast<T *>(N);
      return;
    }
    void **Inner = static_cast<void **>(N);
    for (uint64_t K = 0; K < Fan; ++K)
      destroy(Inner[K], Level - 1);
    delete[] Inner;
  }
  template <typename Fn> static void visit(const void *N, unsigned Level, Fn &F) {
    if (!N)
      return;
    if (Level == 1) {
      for (uint64_t K = 0; K < Fan; ++K)
        F(static_cast<const T *>(N)[K]);
      return;
    }
    for (uint64_t K = 0; K < Fan; ++K)
      visit(static_cast<void *const *>(N)[K], Level - 1, F);
  }

  void *Root = nullptr;
  unsigned Levels = 1;
  T Default{};
};

/// A set of stripe numbers (bits), sparse as above.
class SparseBits {
public:
  explicit SparseBits(uint64_t Extent = 1, bool AllSet = false)
      : Words(Extent / 64 + 1, AllSet ? ~0ULL : 0ULL) {}
  bool test(uint64_t I) const { return Words.get(I / 64) >> (I % 64) & 1; }
  void setBit(uint64_t I) {
    if (!test(I))
      Words.ref(I / 64) |= 1ULL << (I % 64);
  }
  void clearBit(uint64_t I) {
    if (test(I))
      Words.ref(I / 64) &= ~(1ULL << (I % 64));
  }
  void reserve(uint64_t Extent) { Words.reserve(Extent / 64 + 1); }
  /// Bits 64W..64W+63, and clearing those not in \p Mask (word-wise
  /// exchange with other processes).
  unsigned long long word(uint64_t W) const { return Words.get(W); }
  void andWord(uint64_t W, unsigned long long Mask) {
    if (Words.get(W) & ~Mask)
      Words.ref(W) &= Mask;
  }
  /// Bits set in allocated words (the count of a set that started empty).
  uint64_t countAllocated() const {
    uint64_t N = 0;
    Words.forEachAllocated([&](unsigned long long W) { N += static_cast<uint64_t>(__builtin_popcountll(W)); });
    return N;
  }
  void reset(bool AllSet) { Words.clear(AllSet ? ~0ULL : 0ULL); }

private:
  SparseTable<unsigned long long> Words;
};

} // namespace iopoly

#endif
