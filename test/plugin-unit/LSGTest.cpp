//===- LSGTest.cpp - Locality set graph algorithms on the paper's examples -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, Figs. 6-8 and 10. The figures' drawings are not part of the text
// we have, so the graphs are rebuilt from what the text says about them:
// Fig. 6 - a DAG on 4 disks whose original (index) order has total Hamming
// distance 28 and whose minimal-Hamming schedule has 15; Fig. 7 - an LSG
// with two cycles, removed by merging; Fig. 8 - one node whose removal
// breaks both cycles.
//
//===----------------------------------------------------------------------===//
#include "Support/LSG.h"

#include <gtest/gtest.h>

using namespace iopoly;

namespace {

LSG graph(std::vector<uint64_t> Maps, std::vector<std::pair<unsigned, unsigned>> Edges) {
  LSG G;
  for (uint64_t M : Maps)
    G.addNode(M);
  for (auto [U, V] : Edges)
    G.addEdge(U, V);
  return G;
}

bool respectsEdges(const LSG &G, const std::vector<unsigned> &Order) {
  std::vector<unsigned> Pos(G.size());
  for (unsigned K = 0; K < Order.size(); ++K)
    Pos[Order[K]] = K;
  for (unsigned U = 0; U < G.size(); ++U)
    for (unsigned V : G.Succ[U])
      if (Pos[U] >= Pos[V])
        return false;
  return true;
}

} // namespace

TEST(LSG, HammingDistanceCountsDisksThatChangeState) {
  EXPECT_EQ(0u, hammingDistance(0b0110, 0b0110));
  EXPECT_EQ(2u, hammingDistance(0b1100, 0b0110));
  EXPECT_EQ(4u, hammingDistance(0b1111, 0b0000));
  EXPECT_EQ("0110", mapString(0b0110, 4));
  EXPECT_EQ("1100", mapString(0b0011, 4)); // disk 0 first, as the paper writes Lambda
}

TEST(LSG, Fig6MinimalHammingScheduleHalvesTheDiskStateChanges) {
  LSG G = graph({14, 9, 13, 8, 14, 1, 8, 5, 3, 4, 2, 13}, {{0, 8}, {1, 4}, {1, 9}, {2, 10}, {4, 6}});
  std::vector<unsigned> Original = topologicalOrder(G);
  std::vector<unsigned> Hamming = scheduleByHamming(G);
  ASSERT_EQ(G.size(), Hamming.size());
  EXPECT_TRUE(respectsEdges(G, Original));
  EXPECT_TRUE(respectsEdges(G, Hamming));
  EXPECT_EQ(28u, totalHamming(G, Original));
  EXPECT_EQ(15u, totalHamming(G, Hamming));
  EXPECT_EQ((std::vector<unsigned>{0, 2, 11, 1, 3, 4, 6, 5, 7, 9, 10, 8}), Hamming);
}

TEST(LSG, SchedulingIsDeterministicOnTies) {
  LSG G = graph({1, 2, 4, 8}, {});
  EXPECT_EQ((std::vector<unsigned>{0, 1, 2, 3}), scheduleByHamming(G)); // all distances 2: smallest index
  LSG H = graph({0b0011, 0b1100, 0b0111}, {});
  EXPECT_EQ((std::vector<unsigned>{0, 2, 1}), scheduleByHamming(H));
}

TEST(LSG, ACyclicGraphCannotBeScheduled) {
  LSG G = graph({1, 2, 3}, {{0, 1}, {1, 2}, {2, 0}});
  EXPECT_TRUE(G.hasCycle());
  EXPECT_TRUE(scheduleByHamming(G).empty());
  EXPECT_EQ((std::vector<std::vector<unsigned>>{{0, 1, 2}}), cyclicComponents(G));
}

TEST(LSG, Fig7NodeMergingRemovesTheCyclesAndOrsTheMaps) {
  // Two cycles: 1 -> 2 -> 1 and 3 -> 4 -> 5 -> 3; 0 feeds both.
  LSG G = graph({0b0001, 0b0010, 0b0100, 0b1000, 0b1001, 0b0110},
                {{0, 1}, {1, 2}, {2, 1}, {0, 3}, {3, 4}, {4, 5}, {5, 3}});
  auto Cycles = cyclicComponents(G);
  ASSERT_EQ(2u, Cycles.size());
  LSG M = G;
  for (size_t K = Cycles.size(); K-- > 0;) {
    std::vector<unsigned> Remap;
    M = mergeNodes(M, cyclicComponents(M)[K], Remap);
  }
  EXPECT_FALSE(M.hasCycle());
  EXPECT_EQ(3u, M.size());
  EXPECT_EQ((std::vector<uint64_t>{0b0001, 0b0110, 0b1111}), M.Map);
  EXPECT_EQ(M.size(), scheduleByHamming(M).size());
}

TEST(LSG, Fig8OneNodeBreaksBothCycles) {
  // Node 2 lies on both cycles 0 -> 1 -> 2 -> 0 and 2 -> 3 -> 4 -> 2.
  LSG G = graph({1, 2, 4, 8, 3}, {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4}, {4, 2}});
  EXPECT_EQ((std::vector<unsigned>{2}), feedbackVertexSet(G));
}

TEST(LSG, FeedbackVertexSetLeavesAnAcyclicGraph) {
  // Three overlapping cycles; whatever the heuristic picks must cut them all.
  LSG G = graph({1, 2, 4, 8, 16, 32}, {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4}, {4, 1}, {4, 5}, {5, 3}});
  std::vector<unsigned> F = feedbackVertexSet(G);
  ASSERT_FALSE(F.empty());
  LSG Rest = G;
  for (unsigned R : F) {
    Rest.Succ[R].clear();
    for (auto &S : Rest.Succ)
      S.erase(std::remove(S.begin(), S.end(), R), S.end());
  }
  EXPECT_FALSE(Rest.hasCycle());
  EXPECT_LE(F.size(), 2u);
  EXPECT_TRUE(feedbackVertexSet(graph({1, 2}, {{0, 1}})).empty());
}
