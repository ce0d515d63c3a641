//===- TaskGraph.h - Locality sets as tasks with dependences ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The input of the parallel scheduler (paper 1, section 5): one task per
// locality set, in the sequential (minimal Hamming distance) order the
// restructuring chose, each with its disk map, the stripes it keeps pinned
// while it runs, and the sets it depends on (edges of the LSG after cycle
// removal). Sets with no path between them may run at the same time.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_SCHED_TASKGRAPH_H
#define IOPOLY_SCHED_TASKGRAPH_H

#include "core/Error.h"
#include "sched/DiskMap.h"

#include <cstdint>
#include <vector>

namespace iopoly::sched {

struct SetTask {
  DiskMap Disks;               ///< disks (or stripe units) the set touches
  uint64_t Stripes = 0;        ///< stripes it pins while running (0: unknown, treated as 1)
  std::vector<uint32_t> Preds; ///< sets that must finish before it starts
};

struct TaskGraph {
  std::vector<SetTask> Tasks; ///< in the sequential order

  size_t size() const { return Tasks.size(); }
  /// Successor lists (the reverse of Preds).
  std::vector<std::vector<uint32_t>> successors() const;
  /// Errors for a predecessor out of range, a set depending on itself, a
  /// repeated edge or a cycle, naming the sets.
  Status validate() const;
};

} // namespace iopoly::sched

#endif
