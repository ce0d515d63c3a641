//===- BeladyMinTest.cpp - Belady's MIN of iopoly-trace --min --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "tools/BeladyMin.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

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

namespace {

/// MIN by its definition, quadratic: on a miss with a full buffer, drop the
/// resident stripe whose next reference is farthest (or never comes).
uint64_t minByDefinition(const std::vector<uint64_t> &R, uint64_t Frames) {
  std::vector<uint64_t> Resident;
  uint64_t Misses = 0;
  for (size_t I = 0; I < R.size(); ++I) {
    if (std::find(Resident.begin(), Resident.end(), R[I]) != Resident.end())
      continue;
    ++Misses;
    if (Frames == 0)
      continue;
    if (Resident.size() == Frames) {
      size_t Victim = 0, Farthest = 0;
      for (size_t V = 0; V < Resident.size(); ++V) {
        size_t Next = std::find(R.begin() + I + 1, R.end(), Resident[V]) - R.begin();
        if (Next >= Farthest) {
          Farthest = Next;
          Victim = V;
        }
      }
      Resident.erase(Resident.begin() + Victim);
    }
    Resident.push_back(R[I]);
  }
  return Misses;
}

} // namespace

// References spilled to the scratch file a few at a time (chunks of 7)
// count as MIN by its definition does, on random strings with runs of one
// stripe and reuse at every distance.
TEST(BeladyMin, OutOfCoreCountsAsTheDefinition) {
  std::srand(7);
  for (int Case = 0; Case < 60; ++Case) {
    std::vector<uint64_t> R;
    uint64_t Stripes = 1 + std::rand() % 40, Length = std::rand() % 400;
    for (uint64_t I = 0; I < Length; ++I) {
      uint64_t K = (std::rand() % 3 == 0 && !R.empty()) ? R.back() : (std::rand() % Stripes) << (std::rand() % 2 * 48);
      R.push_back(K);
    }
    uint64_t Frames = std::rand() % 12;
    MinCounter C("", 7);
    for (uint64_t K : R)
      ASSERT_FALSE(C.add(K));
    MinResult M;
    ASSERT_FALSE(C.count(Frames, M));
    EXPECT_EQ(M.Misses, minByDefinition(R, Frames)) << "case " << Case << ", " << Frames << " frames";
    EXPECT_EQ(M.References, R.size());
    EXPECT_EQ(M.Misses, beladyMin(R, Frames).Misses);
  }
}

TEST(BeladyMin, AScratchDirectoryThatCannotBeUsedIsNamed) {
  MinCounter C("/nonexistent-iopoly-dir", 2);
  Status S;
  for (uint64_t K = 0; K < 5 && !S; ++K)
    S = C.add(K);
  ASSERT_TRUE(S);
  EXPECT_NE(S.message().find("/nonexistent-iopoly-dir"), std::string::npos) << S.message();
}
