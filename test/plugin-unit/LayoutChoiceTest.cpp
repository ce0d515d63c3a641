//===- LayoutChoiceTest.cpp - The layout vote of paper 1, Fig. 12 ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/LayoutChoice.h"

#include <gtest/gtest.h>

using namespace iopoly;

static std::string chosen(const LayoutChoice &C) { return permString(C.Candidates[C.Chosen].Perm); }

// Section 4's example: for i, for j: U[i][j] = f(V[j][i]).
TEST(LayoutChoice, TheTransposedArrayIsStoredColumnMajor) {
  EXPECT_EQ("0,1", chosen(chooseLayout(2, {{1024 * 1024, {1, 2}}})));
  LayoutChoice V = chooseLayout(2, {{1024 * 1024, {2, 1}}});
  EXPECT_EQ("1,0", chosen(V));
  ASSERT_EQ(2u, V.Candidates.size());
  EXPECT_EQ(0, V.Candidates[0].Along);
  EXPECT_EQ(1024 * 1024, V.Candidates[0].Against);
  EXPECT_EQ(1024 * 1024, V.Candidates[1].Along);
}

TEST(LayoutChoice, AThreeDimensionalArrayHasSixCandidates) {
  // for i, for j, for k: A[k][i][j]: k varies fastest, then j, then i.
  LayoutChoice C = chooseLayout(3, {{1000, {3, 1, 2}}});
  EXPECT_EQ(6u, C.Candidates.size());
  EXPECT_EQ("1,2,0", chosen(C));
  // Two layouts end in dimension 0; the exact preference decides.
  EXPECT_EQ(1000, C.Candidates[C.Chosen].Preferred);
}

TEST(LayoutChoice, TheHeavierStatementWins) {
  EXPECT_EQ("1,0", chosen(chooseLayout(2, {{10, {1, 2}}, {100, {2, 1}}})));
  EXPECT_EQ("0,1", chosen(chooseLayout(2, {{100, {1, 2}}, {10, {2, 1}}})));
}

TEST(LayoutChoice, TiesAndSilenceKeepRowMajor) {
  EXPECT_EQ("0,1", chosen(chooseLayout(2, {{50, {1, 2}}, {50, {2, 1}}})));
  EXPECT_EQ("0,1", chosen(chooseLayout(2, {})));
  EXPECT_EQ("0,1", chosen(chooseLayout(2, {{50, {0, 0}}}))); // loop-invariant
}

TEST(LayoutChoice, ADiagonalIsOther) {
  LayoutChoice C = chooseLayout(2, {{64, {1, 1}}});
  EXPECT_EQ(64, C.Other);
  EXPECT_EQ("0,1", chosen(C));
  EXPECT_EQ(64, C.Candidates[1].Against);
}

TEST(LayoutChoice, AnInvariantSubscriptGoesFirst) {
  // for i: A[i][5]: only dimension 0 varies, it should be stride-1.
  EXPECT_EQ("1,0", chosen(chooseLayout(2, {{100, {1, 0}}})));
}

// PolyBench's lu: its matrix is walked along columns about 1.4 times as
// much as along rows (by the estimates); stored column-major it ran 3x
// slower. Estimated weights need twice row-major's; measured ones do not.
TEST(LayoutChoice, ANearTieKeepsRowMajorUnlessTheCountsAreMeasured) {
  std::vector<LayoutAccess> A = {{2100, {1, 3}}, {3000, {3, 1}}};
  LayoutChoice C = chooseLayout(2, A);
  EXPECT_EQ("0,1", chosen(C));
  EXPECT_TRUE(C.NearTie);
  EXPECT_EQ("1,0", chosen(chooseLayout(2, A, 1.0)));
  A[1].Weight = 4201;
  C = chooseLayout(2, A);
  EXPECT_EQ("1,0", chosen(C));
  EXPECT_FALSE(C.NearTie);
}

// B[i][j] inside a k loop touches one element k times in a row: it votes
// once per element visit, so the column walk of the same nest wins.
TEST(LayoutChoice, RepeatsOfOneElementVoteOnce) {
  LayoutAccess Invariant{1000000, {1, 2}};
  Invariant.Repeats = 200;
  LayoutAccess Column{1000000, {3, 2}};
  EXPECT_EQ("1,0", chosen(chooseLayout(2, {Invariant, Column})));
  Invariant.Repeats = 1;
  EXPECT_EQ("0,1", chosen(chooseLayout(2, {Invariant, Column})));
}
