//===- BeladyMinTest.cpp - Belady's MIN of iopoly-trace --min --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "tools/BeladyMin.h"

#include <gtest/gtest.h>

using namespace iopoly;

// The textbook reference string (Silberschatz et al., "Operating System
// Concepts", optimal page replacement): 9 faults with 3 frames.
TEST(BeladyMin, TextbookStringHasNineFaultsWithThreeFrames) {
  std::vector<uint64_t> R{7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1};
  MinResult M = beladyMin(R, 3);
  EXPECT_EQ(M.References, 20u);
  EXPECT_EQ(M.Distinct, 6u);
  EXPECT_EQ(M.Misses, 9u);
  EXPECT_EQ(M.Refetches(), 3u);
}

TEST(BeladyMin, EverythingFitsMissesOnlyOnFirstReferences) {
  std::vector<uint64_t> R;
  for (int Pass = 0; Pass < 5; ++Pass)
    for (uint64_t K = 0; K < 10; ++K)
      R.push_back(K);
  EXPECT_EQ(beladyMin(R, 10).Misses, 10u);
  EXPECT_EQ(beladyMin(R, 10).Refetches(), 0u);
}

// A cyclic scan of N stripes with C < N frames: LRU misses on every
// reference; MIN misses only N - C times per pass after the first.
TEST(BeladyMin, CyclicScanBeatsLRU) {
  const uint64_t N = 8, C = 5, Passes = 4;
  std::vector<uint64_t> R;
  for (uint64_t P = 0; P < Passes; ++P)
    for (uint64_t K = 0; K < N; ++K)
      R.push_back(K);
  MinResult M = beladyMin(R, C);
  EXPECT_EQ(M.Misses, N + (Passes - 1) * (N - C));
  EXPECT_LT(M.Misses, N * Passes);
}

TEST(BeladyMin, NoFramesMissesEverything) {
  std::vector<uint64_t> R{1, 1, 2, 1};
  EXPECT_EQ(beladyMin(R, 0).Misses, 4u);
}
