//===- ViewMapTest.cpp - File views as byte maps; interval sets ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "common/IntervalSet.h"
#include "common/ViewMap.h"

#include <gtest/gtest.h>

using namespace iopoly::prof;

namespace {
std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> pieces(const ViewMap &V, uint64_t Pos, uint64_t N) {
  std::vector<Piece> P;
  V.map(Pos, N, P);
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> Out;
  for (const Piece &X : P)
    Out.emplace_back(X.FileOff, X.Len, X.StreamPos);
  return Out;
}
using T = std::tuple<uint64_t, uint64_t, uint64_t>;
} // namespace

TEST(ViewMap, DefaultViewIsTheFile) {
  ViewMap V;
  EXPECT_TRUE(V.contiguous());
  EXPECT_EQ(pieces(V, 100, 50), (std::vector<T>{{100, 50, 0}}));
}

TEST(ViewMap, VectorFiletypeTiledFromTheDisplacement) {
  // MPI_Type_vector(2, 8, 16, MPI_BYTE): runs at 0 and 16, extent 24.
  ViewMap V(1000, 1, {{0, 8}, {16, 8}}, 24);
  EXPECT_FALSE(V.contiguous());
  EXPECT_EQ(V.tileSize(), 16u);
  // Two tiles: the second starts at 1024, touching the first's last run.
  EXPECT_EQ(pieces(V, 0, 32), (std::vector<T>{{1000, 8, 0}, {1016, 16, 8}, {1040, 8, 24}}));
  // From the middle of a run.
  EXPECT_EQ(pieces(V, 12, 6), (std::vector<T>{{1020, 6, 0}})); // run 2 of tile 0 touches tile 1
  EXPECT_EQ(V.fileOffset(9), 1017u);
}

TEST(ViewMap, AdjacentRunsMergeAndSubarrayRowsStayApart) {
  // A 4x4 byte array, 2x2 subarray at (1, 1): rows of 2 bytes 4 apart.
  ViewMap V(0, 1, {{5, 1}, {6, 1}, {9, 2}}, 16);
  ASSERT_EQ(V.runs().size(), 2u);
  EXPECT_EQ(pieces(V, 0, 8), (std::vector<T>{{5, 2, 0}, {9, 2, 2}, {21, 2, 4}, {25, 2, 6}}));
}

TEST(ViewMap, StreamBytesBeforeAFileOffset) {
  ViewMap V(1000, 1, {{0, 8}, {16, 8}}, 24);
  EXPECT_EQ(V.streamBytesBefore(900), 0u);
  EXPECT_EQ(V.streamBytesBefore(1004), 4u);
  EXPECT_EQ(V.streamBytesBefore(1012), 8u);
  EXPECT_EQ(V.streamBytesBefore(1024), 16u);
  EXPECT_EQ(V.streamBytesBefore(1030), 22u);
}

TEST(IntervalSet, InsertMergesEraseSplits) {
  IntervalSet S;
  S.insert(10, 20);
  S.insert(30, 40);
  S.insert(20, 30); // touching: one range
  EXPECT_EQ(S.count(), 1u);
  EXPECT_TRUE(S.covers(10, 40));
  S.erase(15, 25);
  EXPECT_EQ(S.ranges(), (std::vector<Range>{{10, 15}, {25, 40}}));
  EXPECT_EQ(S.outside(0, 50), (std::vector<Range>{{0, 10}, {15, 25}, {40, 50}}));
  EXPECT_EQ(S.inside(12, 30), (std::vector<Range>{{12, 15}, {25, 30}}));
  EXPECT_TRUE(S.intersects(14, 16));
  EXPECT_FALSE(S.intersects(15, 25));
  EXPECT_EQ(S.bytes(), 20u);
  S.erase(0, 100);
  EXPECT_TRUE(S.empty());
}
