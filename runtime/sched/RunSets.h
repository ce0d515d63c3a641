//===- RunSets.h - __iopoly_run_sets and its statistics -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What compiled code calls to run locality sets as tasks (include/iopoly/
// abi.h): the table is checked and turned into a TaskGraph, and the sets run
// on IOPOLY_THREADS threads by the IOPOLY_SCHED policy. The totals of all
// runs go into the statistics file as the "threads" object.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_SCHED_RUNSETS_H
#define IOPOLY_SCHED_RUNSETS_H

#include "core/Error.h"
#include "sched/TaskGraph.h"

#include <string>

struct iopoly_set_table;

namespace iopoly {
struct Config;
}

namespace iopoly::sched {

/// What runs of tasks add to the "threads" statistics.
struct RunTotals {
  uint64_t Regions = 0, Sets = 0, DisksInUseSum = 0, CapacityWaits = 0, MaxPinned = 0;
  uint64_t Handouts = 0; ///< starts: a set, or a chunk of a parallel loop's iterations
  unsigned DisksInUseMax = 0, MaxRunning = 0;
};
void addRunTotals(unsigned Threads, const char *Policy, const RunTotals &R);

/// IOPOLY_THREADS, or the cores available.
unsigned threadsToUse(const Config &C);

/// The graph of a table from compiled code, or an error naming what is wrong.
Status graphOfTable(const iopoly_set_table &Table, TaskGraph &Out);

/// The "threads" object of the statistics file: threads, policy, regions
/// run, sets run, hand-outs (starts: a set, or a chunk of consecutive
/// iterations of a parallel loop), disks in use per start (mean and max),
/// most sets running at once, most stripes pinned by running sets.
std::string schedStatsJSON();

} // namespace iopoly::sched

#endif
