//===- Executor.h - Running locality sets on threads --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the sets of a TaskGraph on a number of threads (the caller is
// thread 0) that share the runtime's one stripe buffer. A free thread takes
// a ready set (every predecessor finished) by the policy (Policy.h); G is
// the disks of the running sets, or, while none runs, those of the set
// finished last. Capacity: a set starts only if its stripes fit beside
// those pinned by the running sets; a set larger than the capacity alone
// starts when nothing else runs. With one thread the sets run in their
// sequential order, the single-thread restructured program.
//
// What it does per decision costs a scan of the ready sets under one mutex;
// the sets themselves (whole data tiles) are far longer.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_SCHED_EXECUTOR_H
#define IOPOLY_SCHED_EXECUTOR_H

#include "sched/Policy.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace iopoly::sched {

/// Modeled time as the executor sees it (the disk model's thread clocks,
/// io/DiskModel.h): helper threads start at the caller's clock, a set
/// starts no earlier than its predecessors ended (or, when it waited for
/// room in the buffer, than the set whose end made room), and the caller's
/// clock moves to the latest end.
class ThreadClocks {
public:
  virtual ~ThreadClocks() = default;
  virtual double now() = 0;             ///< the calling thread's clock
  virtual void waitUntil(double T) = 0; ///< the calling thread waits until T
  virtual void enter(double At) = 0;    ///< a helper thread starts at At
  virtual void leave() = 0;             ///< a helper thread is done
};

struct ExecOptions {
  Policy Kind = Policy::Global;
  unsigned Threads = 1;
  uint64_t Capacity = 0;      ///< stripes (0: unlimited)
  std::vector<unsigned> Owner; ///< optional: thread k runs only sets owned by k
  bool RecordEvents = false;  ///< keep Events (tests)
  ThreadClocks *Clocks = nullptr; ///< optional: modeled time
};

/// One start or finish, in the order they happened (under the mutex).
struct ExecEvent {
  uint32_t Set;
  unsigned Thread;
  bool Start;
  DiskMap G;       ///< global disk map after the event
  uint64_t Pinned; ///< stripes pinned by running sets after the event
  unsigned Running;
};

struct ExecReport {
  uint64_t Starts = 0;
  uint64_t DisksInUseSum = 0; ///< sum over starts of |G| just after the start
  unsigned DisksInUseMax = 0;
  unsigned MaxRunning = 0;
  uint64_t MaxPinned = 0;
  uint64_t CapacityWaits = 0; ///< times a ready set waited for room in the buffer
  std::vector<ExecEvent> Events;
  double disksInUseMean() const { return Starts ? double(DisksInUseSum) / double(Starts) : 0; }
};

/// Runs every set once through \p Body(set, thread). The graph must be
/// valid (TaskGraph::validate). Returns when all have finished.
ExecReport runTaskGraph(const TaskGraph &Graph, const ExecOptions &Options,
                        const std::function<void(uint32_t Set, unsigned Thread)> &Body);

} // namespace iopoly::sched

#endif
