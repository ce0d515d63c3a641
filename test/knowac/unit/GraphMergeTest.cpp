//===- GraphMergeTest.cpp - The accumulation graph, paper 5 Figs. 5-6 ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Fig. 5: two runs that diverge at V2 and merge again at V5 give one graph
// with a branch; a run that repeats a path changes only its counts. Fig. 6:
// a vertex holds the region, the operation, the size and the time of its
// accesses.
//
//===----------------------------------------------------------------------===//
#include "Graph.h"
#include "KnowacTestUtil.h"

#include <gtest/gtest.h>

using namespace iopoly::knowac;
using namespace iopoly::knowac::test;

namespace {
uint64_t visits(const Graph &G, const std::string &A, const std::string &B) {
  int X = A == "start" ? 0 : vertexOf(G, A), Y = vertexOf(G, B);
  if (X < 0 || Y < 0)
    return 0;
  int E = G.edgeBetween(uint32_t(X), uint32_t(Y));
  return E < 0 ? 0 : G.edges()[size_t(E)].Visits;
}
} // namespace

TEST(GraphMerge, Figure5DivergesAtV2AndMergesAtV5) {
  Graph G;
  G.merge(runOf({"V1", "V2", "V3", "V4", "V5", "V6"}));
  MergeStats M = G.merge(runOf({"V1", "V2", "V7", "V8", "V5", "V6"}));
  EXPECT_EQ(M.NewVertices, 2u); // V7 and V8; V5 is joined, not copied
  EXPECT_EQ(M.Joined, 1u);
  EXPECT_EQ(G.size(), 9u);      // start + V1..V8
  EXPECT_EQ(G.withKey(readOf("V5").key()).size(), 1u);
  EXPECT_EQ(visits(G, "start", "V1"), 2u);
  EXPECT_EQ(visits(G, "V1", "V2"), 2u);
  EXPECT_EQ(visits(G, "V2", "V3"), 1u);
  EXPECT_EQ(visits(G, "V2", "V7"), 1u);
  EXPECT_EQ(visits(G, "V4", "V5"), 1u);
  EXPECT_EQ(visits(G, "V8", "V5"), 1u);
  EXPECT_EQ(visits(G, "V5", "V6"), 2u);
  EXPECT_EQ(G.vertices()[size_t(vertexOf(G, "V5"))].Visits, 2u);
  EXPECT_EQ(G.vertices()[size_t(vertexOf(G, "V3"))].Visits, 1u);
}

TEST(GraphMerge, RepeatingAPathOnlyCounts) {
  Graph G;
  G.merge(runOf({"a", "b", "c"}));
  size_t V = G.size(), E = G.edges().size();
  MergeStats M = G.merge(runOf({"a", "b", "c"}));
  EXPECT_EQ(M.NewVertices, 0u);
  EXPECT_EQ(M.NewEdges, 0u);
  EXPECT_EQ(M.Followed, 3u);
  EXPECT_EQ(G.size(), V);
  EXPECT_EQ(G.edges().size(), E);
  EXPECT_EQ(visits(G, "b", "c"), 2u);
}

TEST(GraphMerge, Figure6AVertexHoldsRegionOperationSizeAndTime) {
  Graph G;
  std::vector<Step> P = runOf({"temperature"}, 0.5, 0.2);
  P[1].L.Region = "=0,0+1/4,*";
  P[1].Bytes = 1 << 20;
  G.merge(P);
  P[1].IoSeconds = 0.4;
  G.merge(P);
  P[1].IoMeasured = false; // served from the cache: not an I/O time sample
  P[1].IoSeconds = 0.0001;
  G.merge(P);
  ASSERT_EQ(G.size(), 2u);
  const Vertex &V = G.vertices()[1];
  EXPECT_EQ(V.L.O, Op::Read);
  EXPECT_EQ(V.L.Var, "temperature");
  EXPECT_EQ(V.L.Region, "=0,0+1/4,*");
  EXPECT_EQ(V.Bytes, 1u << 20);
  EXPECT_EQ(V.Visits, 3u);
  EXPECT_EQ(V.IoSamples, 2u);
  EXPECT_NEAR(V.meanIoSeconds(), 0.3, 1e-12);
  EXPECT_NEAR(G.edges()[0].meanGapSeconds(), 0.5, 1e-12);
}

TEST(GraphMerge, RepeatedLabelsInOneRunStayAcyclic) {
  Graph G;
  G.merge(runOf({"grid", "a", "grid", "b"}));
  G.merge(runOf({"grid", "a", "grid", "b"}));
  EXPECT_EQ(G.size(), 5u); // two vertices read "grid", one per occurrence
  EXPECT_EQ(G.topologicalOrder().size(), G.size());
  // Every edge goes forward in the topological order.
  std::vector<size_t> Pos(G.size());
  auto Order = G.topologicalOrder();
  for (size_t I = 0; I < Order.size(); ++I)
    Pos[Order[I]] = I;
  for (const Edge &E : G.edges())
    EXPECT_LT(Pos[E.Src], Pos[E.Dst]);
}

TEST(GraphMerge, RanksStartAtTheirOwnVertices) {
  Graph G;
  G.merge(runOf({"x"}, 0.01, 0.02, 0, 2));
  G.merge(runOf({"x"}, 0.01, 0.02, 1, 2));
  EXPECT_EQ(G.withKey(Label::start(0, 2).key()).size(), 1u);
  EXPECT_EQ(G.withKey(Label::start(1, 2).key()).size(), 1u);
  // Each rank's path stays its own: rank 1 did not join rank 0's vertex.
  EXPECT_EQ(G.withKey(readOf("x").key()).size(), 2u);
}

TEST(GraphMerge, AShorterRunJoinsFurtherDownstream) {
  Graph G;
  G.merge(runOf({"a", "b", "c", "d"}));
  MergeStats M = G.merge(runOf({"a", "d"})); // skips b and c
  EXPECT_EQ(M.NewVertices, 0u);
  EXPECT_EQ(M.Joined, 1u);
  EXPECT_EQ(visits(G, "a", "d"), 1u);
}
