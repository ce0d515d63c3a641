//===- LSG.h - The locality set graph and its algorithms --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, section 3. A node is an independent locality set: instances that
// touch the same set of disks (or stripe chunks) Lambda, kept as a bit mask;
// an edge u -> v says some instance of v depends on one of u. The graph
// algorithms are plain functions on plain data, so they are tested alone on
// the paper's examples; the isl side (building nodes, splitting them) lives
// in Analysis/LocalitySets.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_LSG_H
#define IOPOLY_PLUGIN_SUPPORT_LSG_H

#include <cstdint>
#include <string>
#include <vector>

namespace iopoly {

struct LSG {
  std::vector<uint64_t> Map;                ///< Lambda of each node
  std::vector<std::vector<unsigned>> Succ;  ///< sorted, no duplicates

  unsigned size() const { return static_cast<unsigned>(Map.size()); }
  unsigned addNode(uint64_t Lambda);
  void addEdge(unsigned From, unsigned To); ///< self edges are ignored
  std::vector<std::vector<unsigned>> predecessors() const;
  bool hasCycle() const;
};

/// Number of disks (bits) whose state changes between two maps.
unsigned hammingDistance(uint64_t A, uint64_t B);

/// Sum of the Hamming distances between consecutive nodes of \p Order
/// (paper 1, Fig. 6: "total Hamming distance").
unsigned totalHamming(const LSG &G, const std::vector<unsigned> &Order);

/// Strongly connected components with more than one node (the cycles), each
/// sorted, in order of their smallest node.
std::vector<std::vector<unsigned>> cyclicComponents(const LSG &G);

/// A small set of nodes whose removal leaves G acyclic (a feedback vertex
/// set). Greedy heuristic in the spirit of the local-ratio algorithms the
/// paper cites ([7]): repeatedly drop nodes that cannot be on a cycle (no
/// in- or out-edge within the remaining graph), then remove the node with
/// the most cycles through it, estimated by in-degree x out-degree;
/// deterministic (ties: smallest index).
std::vector<unsigned> feedbackVertexSet(const LSG &G);

/// Paper 1, Fig. 10, schedule_LSG: repeatedly schedules, among the ready
/// nodes (all predecessors scheduled), the one at minimal Hamming distance
/// from the node scheduled last; ties go to the smallest index. The first
/// node is the ready node with the smallest index. Empty if G has a cycle.
std::vector<unsigned> scheduleByHamming(const LSG &G);

/// A topological order that breaks ties by index: the "original order" a
/// schedule is compared with.
std::vector<unsigned> topologicalOrder(const LSG &G);

/// Node merging (paper 1, Fig. 7b-c): \p Group becomes one node whose map is
/// the OR of the maps; returns the new graph and, through \p Remap, where
/// each old node went.
LSG mergeNodes(const LSG &G, const std::vector<unsigned> &Group, std::vector<unsigned> &Remap);

/// "0110"-style rendering of \p Lambda over \p Bits disks (disk 0 first).
std::string mapString(uint64_t Lambda, unsigned Bits);

} // namespace iopoly

#endif
