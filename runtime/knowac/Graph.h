//===- Graph.h - The accumulation graph (paper 5, section IV.B) -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Vertices are data objects (Label.h) with what was measured there: visits,
// size, I/O time (Fig. 6). An edge v -> w says that a run accessed w right
// after v; it counts the runs that did and sums the idle (compute) time
// between the two accesses. Each run is a path from the start vertex of its
// rank; merge() adds it to the graph: an existing edge is followed; where
// the run diverges a branch of new vertices grows, and it joins the known
// paths again at the nearest known vertex with the same label downstream
// of the divergence (Fig. 5: diverge at V2, merge again at V5). A run that
// repeats a known path leaves the graph unchanged but for the counts. The
// graph stays acyclic: a branch only joins vertices that lie downstream of
// where it left.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_GRAPH_H
#define IOPOLY_KNOWAC_GRAPH_H

#include "Label.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace iopoly {
namespace knowac {

struct Vertex {
  Label L;
  std::string Key;        ///< L.key(), kept
  std::string File;       ///< path last seen for the file slot (display only)
  uint64_t Visits = 0;    ///< accesses merged into this vertex
  uint64_t Bytes = 0;     ///< size of the access, last seen
  double IoSeconds = 0;   ///< summed time of accesses served by the file
  uint64_t IoSamples = 0; ///< how many of those
  int64_t DbId = 0;       ///< row in the store; 0 = not stored yet
  bool Dirty = false;     ///< changed since loaded

  double meanIoSeconds() const { return IoSamples ? IoSeconds / double(IoSamples) : 0; }
};

struct Edge {
  uint32_t Src = 0, Dst = 0;
  uint64_t Visits = 0;   ///< runs that went from Src to Dst
  double GapSeconds = 0; ///< summed idle time between the two accesses
  bool Stored = false;   ///< already a row in the store
  bool Dirty = false;

  double meanGapSeconds() const { return Visits ? GapSeconds / double(Visits) : 0; }
};

/// One access of a run, in program order.
struct Step {
  Label L;
  std::string File;
  uint64_t Bytes = 0;
  double IoSeconds = 0;    ///< time of the access when served by the file
  bool IoMeasured = false; ///< false when served from the cache
  double GapSeconds = 0;   ///< idle time since the previous access ended
};

struct MergeStats {
  size_t NewVertices = 0, NewEdges = 0, Followed = 0, Joined = 0;
};

class Graph {
public:
  const std::vector<Vertex> &vertices() const { return V; }
  const std::vector<Edge> &edges() const { return E; }
  std::vector<Vertex> &vertices() { return V; }
  std::vector<Edge> &edges() { return E; }
  const std::vector<uint32_t> &outEdges(uint32_t Vx) const { return Out[Vx]; }
  const std::vector<uint32_t> &inEdges(uint32_t Vx) const { return In[Vx]; }
  size_t size() const { return V.size(); }
  bool empty() const { return V.empty(); }

  /// Adds a vertex (Key is computed here); returns its index.
  uint32_t addVertex(Vertex Vx);
  /// Adds an edge; returns its index.
  uint32_t addEdge(uint32_t Src, uint32_t Dst, uint64_t Visits = 0, double GapSeconds = 0);
  /// Index of the edge Src -> Dst, or -1.
  int edgeBetween(uint32_t Src, uint32_t Dst) const;
  /// Vertices whose label has key \p Key (empty if none).
  const std::vector<uint32_t> &withKey(const std::string &Key) const;
  /// A successor of \p Vx with key \p Key, or -1.
  int successorWithKey(uint32_t Vx, const std::string &Key) const;

  /// Merges the path of one run (Path[0] is a start label). \p JoinLimit
  /// bounds the vertices searched for a re-join after a divergence.
  MergeStats merge(const std::vector<Step> &Path, size_t JoinLimit = 4096);

  /// Vertices in a topological order (ties: lower index first).
  std::vector<uint32_t> topologicalOrder() const;

private:
  int joinTarget(uint32_t Anchor, const std::string &Key, size_t Known, size_t Limit) const;

  std::vector<Vertex> V;
  std::vector<Edge> E;
  std::vector<std::vector<uint32_t>> Out, In;
  std::unordered_map<std::string, std::vector<uint32_t>> ByKey;
};

} // namespace knowac
} // namespace iopoly

#endif
