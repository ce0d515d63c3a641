//===- PatternTest.cpp - Accesses as functions of rank and size ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 4, section 4.3: a plan made at one rank count applies at another
// when the profiles show a regular pattern, or says why it cannot.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "partition/Pattern.h"
#include "partition/Plan.h"

#include <gtest/gtest.h>
#include <tuple>

using namespace iopoly::prof;
using namespace iopoly::prof::test;

namespace {
/// perf: every rank writes Block bytes at rank * Block, then reads them.
RunAccesses perf(uint32_t P, uint64_t Block) {
  std::vector<Access> L;
  for (uint32_t R = 0; R < P; ++R) {
    L.push_back(acc(R, 'w', R * Block, Block, 10));
    L.push_back(acc(R, 'r', R * Block, Block, 20));
  }
  return run(P, L);
}

/// A fixed data set of Total bytes split into P blocks, each written in
/// Pieces calls.
RunAccesses split(uint32_t P, uint64_t Total, uint32_t Pieces) {
  std::vector<Access> L;
  uint64_t Block = Total / P, Piece = Block / Pieces;
  for (uint32_t R = 0; R < P; ++R)
    for (uint32_t K = 0; K < Pieces; ++K)
      L.push_back(acc(R, 'w', 4096 + R * Block + K * Piece, Piece, K));
  return run(P, L);
}
} // namespace

TEST(Pattern, OneProfileFitsButOnlyCoversItsRankCount) {
  RankModel M;
  ASSERT_TRUE(fitRun(perf(4, 1 << 20), M).ok());
  ASSERT_EQ(M.Segments.size(), 2u);
  EXPECT_EQ(M.Segments[0].B, Coef::constant(1 << 20));
  EXPECT_TRUE(modelCovers(M, 4));
  EXPECT_FALSE(modelCovers(M, 8));
  std::vector<Access> Out;
  Error E = instantiate(M, 8, Out);
  EXPECT_FALSE(E.ok());
  EXPECT_NE(E.message().find("profiled at 4 ranks only"), std::string::npos) << E.message();
}

TEST(Pattern, WeakScalingAssumedOnRequest) {
  RankModel M;
  ASSERT_TRUE(fitRun(perf(4, 1 << 20), M).ok());
  assumeWeakScaling(M);
  std::vector<Access> Out;
  ASSERT_TRUE(instantiate(M, 8, Out).ok());
  ASSERT_EQ(Out.size(), 16u);
  EXPECT_EQ(Out.back().Rank, 7u);
  EXPECT_EQ(Out.back().Offset, 7u << 20);
}

TEST(Pattern, TwoRankCountsFitAFixedDataSetSplitByRank) {
  RankModel M4, M8, M;
  ASSERT_TRUE(fitRun(split(4, 1 << 20, 4), M4).ok());
  ASSERT_TRUE(fitRun(split(8, 1 << 20, 4), M8).ok());
  ASSERT_TRUE(combineModels({M4, M8}, M).ok());
  ASSERT_EQ(M.Segments.size(), 1u);
  EXPECT_FALSE(M.Segments[0].B.isConstant());
  EXPECT_EQ(M.Segments[0].A0, Coef::constant(4096));
  std::vector<Access> Out;
  ASSERT_TRUE(instantiate(M, 16, Out).ok());
  ASSERT_EQ(Out.size(), 64u);
  // Rank 15's last piece ends at the end of the data set.
  const Access &Last = Out.back();
  EXPECT_EQ(Last.Rank, 15u);
  EXPECT_EQ(Last.Offset + Last.Length, 4096u + (1u << 20));
  // The same data at 16 ranks as a profile would give.
  RankModel M16;
  ASSERT_TRUE(fitRun(split(16, 1 << 20, 4), M16).ok());
  std::vector<Access> Want;
  ASSERT_TRUE(instantiate(M16, 16, Want).ok());
  ASSERT_EQ(Want.size(), Out.size());
  for (size_t I = 0; I < Out.size(); ++I)
    EXPECT_TRUE(Out[I].Offset == Want[I].Offset && Out[I].Length == Want[I].Length && Out[I].Rank == Want[I].Rank);
}

TEST(Pattern, SaysItCannotWhereSizesAreNotWhole) {
  RankModel M4, M8, M;
  ASSERT_TRUE(fitRun(split(4, 1 << 20, 4), M4).ok());
  ASSERT_TRUE(fitRun(split(8, 1 << 20, 4), M8).ok());
  ASSERT_TRUE(combineModels({M4, M8}, M).ok());
  std::vector<Access> Out;
  Error E = instantiate(M, 3, Out);
  ASSERT_FALSE(E.ok());
  EXPECT_NE(E.message().find("not a whole number"), std::string::npos) << E.message();
}

TEST(Pattern, AThirdRankCountMustAgree) {
  RankModel M2, M4, M8, M;
  ASSERT_TRUE(fitRun(split(2, 1 << 20, 4), M2).ok());
  ASSERT_TRUE(fitRun(split(4, 1 << 20, 4), M4).ok());
  ASSERT_TRUE(fitRun(perf(8, 1 << 17), M8).ok());
  EXPECT_FALSE(combineModels({M2, M4, M8}, M).ok());
  ASSERT_TRUE(fitRun(split(8, 1 << 20, 4), M8).ok());
  EXPECT_TRUE(combineModels({M2, M4, M8}, M).ok());
}

TEST(Pattern, IrregularAccessesAreNotAFunctionOfRank) {
  // 2-D tiles on a 2 x 2 grid: the offset is not affine in the rank.
  std::vector<Access> L;
  uint64_t Row = 400, TileW = 200, TileH = 2;
  for (uint32_t R = 0; R < 4; ++R)
    for (uint64_t I = 0; I < TileH; ++I)
      L.push_back(acc(R, 'w', ((R / 2) * TileH + I) * Row + (R % 2) * TileW, TileW));
  RankModel M;
  Error E = fitRun(run(4, L), M);
  ASSERT_FALSE(E.ok());
  EXPECT_NE(E.message().find("rank 2"), std::string::npos) << E.message();
}

TEST(Pattern, DifferentCountsPerRankAreRefused) {
  RankModel M;
  Error E = fitRun(run(2, {acc(0, 'w', 0, 10), acc(0, 'w', 10, 10), acc(1, 'w', 20, 10)}), M);
  ASSERT_FALSE(E.ok());
  EXPECT_NE(E.message().find("rank 1 makes 1"), std::string::npos) << E.message();
}

TEST(Pattern, PlanAppliesAtEightFromFourAndSixteenOrSaysWhy) {
  std::map<std::string, FileProfile> Files;
  Files["/data"].Path = "/data";
  Files["/data"].Runs = {split(4, 1 << 20, 2), split(16, 1 << 20, 2)};
  Plan P = buildPlan(Files, PlanOptions());
  const PlanFile *F = P.find("/data");
  ASSERT_NE(F, nullptr);
  ASSERT_TRUE(F->HasModel) << F->ModelNote;
  FilePlan V;
  std::string How;
  ASSERT_TRUE(resolvePlan(*F, 8, V, How).ok());
  EXPECT_NE(How.find("derived at 8 ranks"), std::string::npos) << How;
  EXPECT_EQ(V.Partitions.size(), 8u);
  EXPECT_EQ(V.Partitions[5].size(), 1u); // each rank's two pieces merge into its block
  Error E = resolvePlan(*F, 6, V, How);
  ASSERT_FALSE(E.ok());
  EXPECT_NE(E.message().find("not a whole number"), std::string::npos) << E.message();
}

namespace {
/// Mandelbrot: rank 0 writes a header every rank reads; bands of H/P rows.
RunAccesses image(uint32_t P, uint64_t Rows = 64, uint64_t W = 256) {
  std::vector<Access> L;
  L.push_back(acc(0, 'w', 0, 64, 1));
  for (uint32_t R = 0; R < P; ++R)
    for (uint64_t Y = 0; Y < Rows / P; ++Y)
      L.push_back(acc(R, 'w', 64 + (R * (Rows / P) + Y) * W, W, 2 + Y));
  for (uint32_t R = 0; R < P; ++R)
    L.push_back(acc(R, 'r', 0, 64, 100));
  // The header write comes first on rank 0: put it in rank 0's order.
  std::stable_sort(L.begin(), L.end(), [](const Access &A, const Access &B) { return A.Rank < B.Rank; });
  return run(P, L);
}
} // namespace

TEST(Pattern, TheFirstRanksOwnAccessesAsideTheCommonPattern) {
  RankModel M4, M8, M;
  ASSERT_TRUE(fitRun(image(4), M4).ok());
  ASSERT_EQ(M4.Edges.size(), 1u);
  EXPECT_FALSE(M4.Edges[0].Last);
  ASSERT_TRUE(fitRun(image(8), M8).ok());
  ASSERT_TRUE(combineModels({M4, M8}, M).ok());
  std::vector<Access> Got;
  ASSERT_TRUE(instantiate(M, 16, Got).ok());
  RankModel M16;
  ASSERT_TRUE(fitRun(image(16), M16).ok());
  std::vector<Access> Want;
  ASSERT_TRUE(instantiate(M16, 16, Want).ok());
  auto Key = [](std::vector<Access> V) {
    std::vector<std::tuple<uint32_t, int, uint64_t, uint64_t>> K;
    for (const Access &A : V)
      K.emplace_back(A.Rank, static_cast<int>(A.Op), A.Offset, A.Length);
    std::sort(K.begin(), K.end());
    return K;
  };
  EXPECT_EQ(Key(Got), Key(Want));
  // Below 4 ranks the edges cannot be told apart from the pattern.
  RankModel M2;
  Error E = fitRun(image(2), M2);
  ASSERT_FALSE(E.ok());
  EXPECT_NE(E.message().find("below 4 ranks"), std::string::npos) << E.message();
}

TEST(Pattern, TheLastRanksBoundaryWrite) {
  // Jacobi's second file: rank 0 and rank P-1 write the boundary rows.
  auto Jacobi = [](uint32_t P) {
    std::vector<Access> L;
    uint64_t Row = 128, N = 64;
    L.push_back(acc(0, 'w', 0, Row));
    for (uint32_t R = 0; R < P; ++R) {
      if (R == P - 1)
        L.push_back(acc(R, 'w', (N + 1) * Row, Row));
      L.push_back(acc(R, 'w', (1 + R * (N / P)) * Row, (N / P) * Row, 5));
    }
    std::stable_sort(L.begin(), L.end(), [](const Access &A, const Access &B) { return A.Rank < B.Rank; });
    return run(P, L);
  };
  RankModel M4, M8, M;
  ASSERT_TRUE(fitRun(Jacobi(4), M4).ok());
  ASSERT_EQ(M4.Edges.size(), 2u);
  ASSERT_TRUE(fitRun(Jacobi(8), M8).ok());
  ASSERT_TRUE(combineModels({M4, M8}, M).ok());
  std::vector<Access> Got;
  ASSERT_TRUE(instantiate(M, 16, Got).ok());
  bool Boundary = false;
  for (const Access &A : Got)
    Boundary |= A.Rank == 15 && A.Offset == 65 * 128;
  EXPECT_TRUE(Boundary);
}
