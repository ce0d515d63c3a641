//===- StepPlan.h - Paper 1 Fig. 14 in lock step ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The schedule of Fig. 13/14 as the paper draws it: P processors advance in
// lock step, every set takes one step, and at each step each processor in
// turn takes a ready set by the policy. For G, the reference map of the
// first processor is the previous step's disk usage (the disks whose
// stripes the buffer holds), and each later processor sees that OR the sets
// chosen before it in the step. Deterministic: it documents and tests the
// policy; the threaded executor (Executor.h) applies the same choice
// functions to real, uneven task times.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_SCHED_STEPPLAN_H
#define IOPOLY_SCHED_STEPPLAN_H

#include "sched/Policy.h"

#include <cstdint>
#include <vector>

namespace iopoly::sched {

struct StepPlan {
  /// Steps[s][k]: the set processor k runs at step s, or -1 (idle).
  std::vector<std::vector<int64_t>> Steps;
  /// The disks of each step: the OR of its sets' maps (Fig. 13's last column).
  std::vector<DiskMap> Usage;
};

/// \p Owner (empty, or one entry per set) restricts processor k to the
/// sets owned by k (paper 1 gives each processor its own LSG); without it
/// any processor takes any set (naive then uses contiguous shares).
/// \p Capacity (stripes, 0: unlimited) bounds the stripes of one step's
/// sets, except that a step's first set always runs. The graph must be
/// valid (TaskGraph::validate).
StepPlan planSteps(const TaskGraph &Graph, Policy P, unsigned Processors, uint64_t Capacity = 0,
                   std::vector<unsigned> Owner = {});

} // namespace iopoly::sched

#endif
