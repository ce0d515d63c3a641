//===- Table1Test.cpp - Paper 4, Table 1: the partitioning rules -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each row of Table 1 on the smallest graph that exercises it, through the
// graph (buildGraph/classify) and through partitionFile.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "partition/Partitioner.h"

#include <gtest/gtest.h>

using namespace iopoly::prof;
using namespace iopoly::prof::test;

namespace {

/// The class and home of a single chunk [0, 100) accessed as \p L.
std::pair<ChunkClass, int32_t> classOf(uint32_t N, std::vector<Access> L) {
  RunAccesses R = run(N, std::move(L));
  std::vector<Chunk> C = buildChunks({&R.List});
  EXPECT_EQ(C.size(), 1u);
  AccessGraph G = buildGraph(C, N);
  int32_t Home = -7;
  ChunkClass K = classify(G, 0, Home);
  return {K, Home};
}

} // namespace

TEST(Table1, WeightOneIsLocalWhateverTheEdge) {
  EXPECT_EQ(classOf(4, {acc(2, 'r', 0, 100)}), std::make_pair(ChunkClass::Local, 2));
  EXPECT_EQ(classOf(4, {acc(3, 'w', 0, 100)}), std::make_pair(ChunkClass::Local, 3));
  EXPECT_EQ(classOf(4, {acc(1, 'w', 0, 100), acc(1, 'r', 0, 100)}), std::make_pair(ChunkClass::Local, 1));
}

TEST(Table1, AllReadEdgesAreDuplicated) {
  EXPECT_EQ(classOf(4, {acc(0, 'r', 0, 100), acc(2, 'r', 0, 100), acc(3, 'r', 0, 100)}),
            std::make_pair(ChunkClass::Duplicate, -1));
}

TEST(Table1, OneWriteEdgeIsBroadcastFromTheWriter) {
  EXPECT_EQ(classOf(4, {acc(1, 'w', 0, 100), acc(0, 'r', 0, 100), acc(3, 'r', 0, 100)}),
            std::make_pair(ChunkClass::Broadcast, 1));
  // A process that reads and writes has edge weight 1 too.
  EXPECT_EQ(classOf(4, {acc(2, 'r', 0, 100), acc(2, 'w', 0, 100), acc(0, 'r', 0, 100)}),
            std::make_pair(ChunkClass::Broadcast, 2));
}

TEST(Table1, SeveralWriteEdgesAreCentral) {
  EXPECT_EQ(classOf(4, {acc(0, 'w', 0, 100), acc(1, 'w', 0, 100)}), std::make_pair(ChunkClass::Central, -1));
  EXPECT_EQ(classOf(4, {acc(0, 'w', 0, 100), acc(1, 'r', 0, 100), acc(1, 'w', 0, 100), acc(2, 'r', 0, 100)}),
            std::make_pair(ChunkClass::Central, -1));
}

TEST(Table1, EdgeWeightsAndDataNodeWeight) {
  RunAccesses R = run(3, {acc(0, 'r', 0, 10), acc(1, 'w', 0, 10), acc(1, 'r', 0, 10), acc(2, 'r', 0, 10)});
  std::vector<Chunk> C = buildChunks({&R.List});
  AccessGraph G = buildGraph(C, 3);
  ASSERT_EQ(G.DataNodes, 1u);
  EXPECT_EQ(G.Processes, 3u);
  EXPECT_EQ(G.dataWeight(0), 3u); // one edge per process, however many accesses
  for (uint32_t E : G.ByData[0])
    EXPECT_EQ(G.Edges[E].Weight, G.Edges[E].Process == 1 ? 1 : 0);
}

TEST(Table1, HoldersAndPartitionsFollowTheClass) {
  RunAccesses R = run(3, {acc(0, 'w', 0, 10), acc(1, 'r', 0, 10),      // broadcast 0 -> 1
                          acc(0, 'r', 100, 10), acc(2, 'r', 100, 10),  // duplicate 0, 2
                          acc(1, 'w', 200, 10), acc(2, 'w', 200, 10)}); // central
  FilePlan P = partitionFile("/f", 3, buildChunks({&R.List}));
  ASSERT_EQ(P.Chunks.size(), 3u);
  EXPECT_EQ(P.Chunks[0].Holders, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(P.Chunks[1].Holders, (std::vector<uint32_t>{0, 2}));
  EXPECT_TRUE(P.Chunks[2].Holders.empty()); // the central partition is the shared file
  EXPECT_EQ(P.Partitions[0].size(), 2u);
  EXPECT_EQ(P.Partitions[1].size(), 1u);
  EXPECT_EQ(P.Partitions[2].size(), 1u);
}
