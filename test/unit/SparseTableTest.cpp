//===- SparseTableTest.cpp - Per-stripe tables that cost what is used -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/SparseTable.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace iopoly;

TEST(SparseTable, MatchesAMapAtAnyExtent) {
  for (uint64_t Extent : {uint64_t(1), uint64_t(1000), uint64_t(1) << 20, uint64_t(1) << 40, ~uint64_t(0)}) {
    SparseTable<int> T(Extent, -1);
    std::map<uint64_t, int> Ref;
    std::mt19937_64 R(Extent);
    for (int K = 0; K < 2000; ++K) {
      uint64_t I = Extent == ~uint64_t(0) ? R() : R() % Extent;
      if (R() % 3 == 0) {
        EXPECT_EQ(Ref.count(I) ? Ref[I] : -1, T.get(I)) << I;
      } else {
        T.set(I, K);
        Ref[I] = K;
      }
    }
    for (const auto &KV : Ref)
      ASSERT_EQ(KV.second, T.get(KV.first)) << "extent " << Extent << " index " << KV.first;
  }
}

TEST(SparseTable, GrowsWithoutLosingEntries) {
  SparseTable<int> T(10, 0);
  T.set(3, 7);
  T.reserve(uint64_t(1) << 35);
  T.set((uint64_t(1) << 35) - 1, 9);
  EXPECT_EQ(7, T.get(3));
  EXPECT_EQ(9, T.get((uint64_t(1) << 35) - 1));
  EXPECT_EQ(0, T.get(12345678));
}

TEST(SparseBits, CountsAndDefaults) {
  SparseBits Fetched(uint64_t(1) << 36);
  for (uint64_t S : {uint64_t(0), uint64_t(63), uint64_t(64), (uint64_t(1) << 36) - 1, uint64_t(63)})
    Fetched.setBit(S);
  EXPECT_EQ(4u, Fetched.countAllocated());
  EXPECT_TRUE(Fetched.test(64));
  EXPECT_FALSE(Fetched.test(65));
  SparseBits Zero(uint64_t(1) << 36, /*AllSet=*/true);
  EXPECT_TRUE(Zero.test(12345));
  Zero.clearBit(12345);
  EXPECT_FALSE(Zero.test(12345));
  EXPECT_TRUE(Zero.test(12346));
  Fetched.reset(false);
  EXPECT_EQ(0u, Fetched.countAllocated());
}
