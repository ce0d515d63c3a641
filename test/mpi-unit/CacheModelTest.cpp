//===- CacheModelTest.cpp - LRU nodes and the end of an epoch -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/CacheModel.h"

#include <gtest/gtest.h>

using namespace iopoly;

static BlockKey K(uint64_t S) { return {7, S}; }

TEST(CacheModel, ReadsAllocateLeastRecentlyUsedGoesFirst) {
  CacheNode N(2);
  EXPECT_FALSE(N.read(K(1), 10));
  EXPECT_FALSE(N.read(K(2), 10));
  EXPECT_TRUE(N.read(K(1), 10)); // 1 is now the most recent
  bool Ev = false;
  BlockKey Victim;
  EXPECT_FALSE(N.read(K(3), 10, &Ev, &Victim));
  EXPECT_TRUE(Ev);
  EXPECT_EQ(2u, Victim.Stripe);
  EXPECT_TRUE(N.read(K(1), 10));
  EXPECT_EQ(5u, N.counters().Reads);
  EXPECT_EQ(2u, N.counters().Hits);
}

TEST(CacheModel, WritesGoThroughWithoutAllocating) {
  CacheNode N(2);
  EXPECT_FALSE(N.write(K(1), 4));
  EXPECT_FALSE(N.cache().contains(K(1)));
  N.read(K(2), 10);
  N.read(K(3), 10);
  EXPECT_TRUE(N.write(K(2), 4)); // refreshes 2: 3 is now the LRU one
  N.read(K(4), 10);
  EXPECT_TRUE(N.cache().contains(K(2)));
  EXPECT_FALSE(N.cache().contains(K(3)));
}

TEST(CacheModel, EpochDropsWhatOtherNodesOfTheLevelWrote) {
  // Node 0 saw both writes of stripe 1; nodes 0 and 1 each saw one of 2;
  // node 1 alone wrote 3.
  std::vector<std::vector<std::pair<BlockKey, uint32_t>>> W = {{{K(1), 2}, {K(2), 1}}, {{K(2), 1}, {K(3), 1}}, {}};
  auto D = levelDrops(W);
  ASSERT_EQ(3u, D.size());
  EXPECT_EQ((std::vector<BlockKey>{K(2), K(3)}), D[0]) << "node 0 keeps 1, which only it wrote";
  EXPECT_EQ((std::vector<BlockKey>{K(1), K(2)}), D[1]);
  EXPECT_EQ((std::vector<BlockKey>{K(1), K(2), K(3)}), D[2]) << "a node no write passed drops every written block";
  CacheNode N(4);
  N.read(K(1), 1);
  N.read(K(9), 1);
  N.write(K(1), 1);
  EXPECT_EQ(1u, N.written({7}).size());
  EXPECT_EQ((std::vector<BlockKey>{K(1)}), N.endEpoch({K(1), K(5)}, {7}));
  EXPECT_TRUE(N.written({7}).empty()) << "the epoch's writes are forgotten";
  EXPECT_TRUE(N.cache().contains(K(9)));
}
