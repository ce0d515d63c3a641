//===- NodeSplitTest.cpp - The satisfactory split of paper 1, Fig. 9 -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Fig. 9: node N1 holds iterations i1..i3, node N2 holds i4..i6; i4 and i6
// depend on N1, N1 depends on i5 - a cycle. Splitting N2 into {i4, i6} and
// {i5} satisfies the three conditions and breaks it; a dependence between
// the two halves does not.
//
//===----------------------------------------------------------------------===//
#include "Support/LSG.h"
#include "Support/NodeSplit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

using namespace iopoly;

namespace {

/// Explicit instance sets and an explicit dependence relation.
struct ExplicitOps {
  using Set = std::set<int>;
  std::set<std::pair<int, int>> Deps; ///< (source, sink)
  Set intersect(const Set &A, const Set &B) const {
    Set R;
    std::set_intersection(A.begin(), A.end(), B.begin(), B.end(), std::inserter(R, R.end()));
    return R;
  }
  Set subtract(const Set &A, const Set &B) const {
    Set R;
    std::set_difference(A.begin(), A.end(), B.begin(), B.end(), std::inserter(R, R.end()));
    return R;
  }
  bool empty(const Set &S) const { return S.empty(); }
  Set dependents(const Set &X) const {
    Set R;
    for (auto [From, To] : Deps)
      if (X.count(From))
        R.insert(To);
    return R;
  }
};

} // namespace

TEST(NodeSplit, Fig9SplitIsSatisfactoryAndBreaksTheCycle) {
  ExplicitOps O;
  O.Deps = {{1, 4}, {3, 6}, {5, 2}};
  std::set<int> N1 = {1, 2, 3}, N2 = {4, 5, 6};
  auto R = splitNode(O, N2, /*Pred=*/N1, /*Succ=*/N1);
  ASSERT_TRUE(R.Satisfactory) << R.Why;
  EXPECT_EQ((std::set<int>{4, 6}), R.A);
  EXPECT_EQ((std::set<int>{5}), R.B);
  // The coarse graph after the split (Fig. 9d): {i5} -> N1 -> {i4, i6}.
  LSG G;
  unsigned A = G.addNode(1), N = G.addNode(2), B = G.addNode(1);
  G.addEdge(N, A);
  G.addEdge(B, N);
  EXPECT_FALSE(G.hasCycle());
}

TEST(NodeSplit, DependenceBetweenTheHalvesIsUnsatisfactory) {
  ExplicitOps O;
  O.Deps = {{1, 4}, {3, 6}, {5, 2}, {4, 5}};
  auto R = splitNode(O, {4, 5, 6}, {1, 2, 3}, {1, 2, 3});
  EXPECT_FALSE(R.Satisfactory);
  EXPECT_NE(std::string::npos, R.Why.find("condition 3")) << R.Why;
}

TEST(NodeSplit, HalfReachingASuccessorIsUnsatisfactory) {
  ExplicitOps O;
  O.Deps = {{1, 4}, {4, 2}, {5, 3}};
  auto R = splitNode(O, {4, 5}, {1, 2, 3}, {1, 2, 3});
  EXPECT_FALSE(R.Satisfactory);
  EXPECT_NE(std::string::npos, R.Why.find("condition 2")) << R.Why;
}

TEST(NodeSplit, NothingToSplitWhenNoInstanceDependsOnThePredecessors) {
  ExplicitOps O;
  O.Deps = {{5, 2}};
  auto R = splitNode(O, {4, 5}, {1, 2}, {1, 2});
  EXPECT_FALSE(R.Satisfactory);
}
