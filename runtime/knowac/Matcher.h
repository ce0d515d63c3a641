//===- Matcher.h - Matching a run against the graph, prediction -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 5, section V.D. The matcher keeps the run's sequence of accesses
// and the graph vertices it is at. A new access that follows the path
// found last time moves along it; otherwise the sequence is matched again:
// the most recent access alone first, then older ones added while more
// than one place of the graph fits ("extended when several"); when an
// older access no longer fits anywhere it is cut off and the places that
// fit the shorter sequence are kept ("shortened from the oldest when no
// match"). Prediction follows the most visited successor, step by step
// (ties: the lower vertex index, so that runs are reproducible).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_MATCHER_H
#define IOPOLY_KNOWAC_MATCHER_H

#include "Graph.h"

#include <deque>
#include <string>
#include <vector>

namespace iopoly {
namespace knowac {

struct Prediction {
  std::string Key;                ///< label key of the predicted access
  std::vector<uint32_t> Vertices; ///< the graph vertices it stands for
  double GapSeconds = 0;          ///< idle time expected before it
  double IoSeconds = 0;           ///< its mean I/O time when read from the file
  uint64_t Bytes = 0;
};

class Matcher {
public:
  explicit Matcher(const Graph &G, size_t MaxHistory = 1024) : G(G), MaxHistory(MaxHistory) {}

  /// A new run begins at the start vertex \p StartKey.
  void start(const std::string &StartKey);
  /// The run accessed \p Key.
  void advance(const std::string &Key);
  /// Where the run is in the graph (empty: no match).
  const std::vector<uint32_t> &position() const { return Pos; }
  /// Up to \p Steps accesses expected next, in order.
  std::vector<Prediction> predict(unsigned Steps) const;

  const Graph &graph() const { return G; }
  uint64_t followed() const { return Followed; }
  uint64_t rematched() const { return Rematched; }

  /// The match of the current history from scratch (exposed for tests).
  std::vector<uint32_t> matchHistory() const;

private:
  const Graph &G;
  size_t MaxHistory;
  std::deque<std::string> History;
  std::vector<uint32_t> Pos;
  uint64_t Followed = 0, Rematched = 0;
};

} // namespace knowac
} // namespace iopoly

#endif
