//===- ChunkingTest.cpp - Unique contiguous chunks from accesses -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "partition/Partitioner.h"

#include <gtest/gtest.h>

using namespace iopoly::prof;
using namespace iopoly::prof::test;

TEST(Chunking, OverlappingTilesSplitAtEveryBoundary) {
  // mpi-tile-io with overlap: two writers share 2 KiB.
  RunAccesses R = run(2, {acc(0, 'w', 0, 32768), acc(1, 'w', 30720, 32768)});
  FilePlan P = partitionFile("/t", 2, buildChunks({&R.List}));
  ASSERT_EQ(P.Chunks.size(), 3u);
  EXPECT_EQ(P.Chunks[0].C.Length, 30720u);
  EXPECT_EQ(P.Chunks[0].Class, ChunkClass::Local);
  EXPECT_EQ(P.Chunks[1].C.Offset, 30720u);
  EXPECT_EQ(P.Chunks[1].C.Length, 2048u);
  EXPECT_EQ(P.Chunks[1].Class, ChunkClass::Central);
  EXPECT_EQ(P.Chunks[2].Class, ChunkClass::Local);
  EXPECT_EQ(P.Chunks[2].Home, 1);
}

TEST(Chunking, ReadOverlapOfAWrittenTileIsBroadcast) {
  RunAccesses R = run(2, {acc(0, 'w', 0, 100), acc(1, 'r', 50, 100)});
  FilePlan P = partitionFile("/t", 2, buildChunks({&R.List}));
  ASSERT_EQ(P.Chunks.size(), 3u);
  EXPECT_EQ(P.Chunks[1].Class, ChunkClass::Broadcast);
  EXPECT_EQ(P.Chunks[1].Home, 0);
  EXPECT_EQ(P.Chunks[2].Class, ChunkClass::Local);
  EXPECT_EQ(P.Chunks[2].Home, 1);
}

TEST(Chunking, AdjacentPiecesWithTheSameEdgesMerge) {
  RunAccesses R = run(2, {acc(0, 'w', 0, 10, 5), acc(0, 'w', 10, 10, 3), acc(1, 'w', 20, 10)});
  std::vector<Chunk> C = buildChunks({&R.List});
  ASSERT_EQ(C.size(), 2u);
  EXPECT_EQ(C[0].Length, 20u);
  EXPECT_EQ(C[0].First, 3u);
  EXPECT_EQ(C[0].By[0].Accesses, 2u);
  EXPECT_EQ(C[0].By[0].Bytes, 20u);
  // Without merging each call keeps its chunk.
  EXPECT_EQ(buildChunks({&R.List}, false).size(), 3u);
}

TEST(Chunking, ReadAndWriteEdgesKeepPiecesApart) {
  RunAccesses R = run(1, {acc(0, 'w', 0, 10), acc(0, 'r', 10, 10)});
  EXPECT_EQ(buildChunks({&R.List}).size(), 2u);
}

TEST(Chunking, GapsAreNotChunks) {
  RunAccesses R = run(1, {acc(0, 'r', 0, 10), acc(0, 'r', 100, 10)});
  std::vector<Chunk> C = buildChunks({&R.List});
  ASSERT_EQ(C.size(), 2u);
  EXPECT_EQ(C[1].Offset, 100u);
}

TEST(Chunking, RunsAtOneRankCountAreMerged) {
  // Two profiles (other input values): the union decides.
  RunAccesses A = run(2, {acc(0, 'r', 0, 100)}), B = run(2, {acc(1, 'w', 0, 100)}, 2);
  FilePlan P = partitionFile("/t", 2, buildChunks({&A.List, &B.List}));
  ASSERT_EQ(P.Chunks.size(), 1u);
  EXPECT_EQ(P.Chunks[0].Class, ChunkClass::Broadcast);
}
