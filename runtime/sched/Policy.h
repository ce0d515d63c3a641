//===- Policy.h - Which ready locality set a free thread runs next -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The two policies of paper 1, section 5, as free functions on plain data
// (shared by the lock-step plan of Fig. 14, StepPlan.h, and the threaded
// executor, Executor.h):
//  * G (Fig. 14): keep the global disk map G of the disks that running sets
//    use. Among the ready sets, take one whose disks are all in G, the one
//    using most of them; if there is none, the one closest to G in Hamming
//    distance.
//  * naive (Fig. 13(b)): every thread follows its own minimal-Hamming order
//    over its own share of the sets, blind to the other threads.
// Ties go to the set earliest in the sequential order, so that one thread
// reproduces the single-thread restructured order.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_SCHED_POLICY_H
#define IOPOLY_SCHED_POLICY_H

#include "core/Error.h"
#include "sched/DiskMap.h"
#include "sched/TaskGraph.h"

#include <string>
#include <vector>

namespace iopoly::sched {

enum class Policy { Global, Naive };

/// "g" or "naive" (IOPOLY_SCHED).
Status parsePolicy(const std::string &Text, Policy &Out);
const char *policyName(Policy P);

/// Fig. 14's choice among \p Ready (set indices, not empty) given the
/// global disk map \p G.
uint32_t pickGlobal(const TaskGraph &Graph, const std::vector<uint32_t> &Ready, const DiskMap &G);

/// A naive thread's choice: the ready set of its share closest to the set
/// it ran last (\p Last; empty before its first set).
uint32_t pickOwnOrder(const TaskGraph &Graph, const std::vector<uint32_t> &Ready, const DiskMap &Last);

/// The naive policy's shares: \p Threads contiguous blocks of the
/// sequential order (what a static loop schedule gives each thread).
std::vector<unsigned> contiguousShares(size_t NumSets, unsigned Threads);

/// G itself: how many running sets use each disk, so that a disk leaves G
/// when the last running set using it finishes.
class GlobalDiskMap {
public:
  void start(const DiskMap &M);
  void finish(const DiskMap &M);
  const DiskMap &map() const { return Map; }

private:
  std::vector<unsigned> Users;
  DiskMap Map;
};

} // namespace iopoly::sched

#endif
