//===- DiskModel.h - Deterministic model of T striped disks -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Computes modeled_io_seconds without depending on the machine. Each disk
// has one FIFO queue; a request costs a positioning time (random, or the
// shorter sequential one when it continues the previous request of that disk
// in the same file) plus bytes / bandwidth. Requests on different disks
// overlap. The application has a virtual clock that only advances when it
// waits for I/O (compute is free in the model): a demand fetch waits for its
// completion, a prefetch is issued at the current clock and waited for only
// when the block is attached. Requests are fed in program order, so the
// result is the same on every run.
//
// Threads that run the tasks of a parallel region (runtime/sched/) each
// have their own clock, started at the clock of the thread that forked
// them: their waits overlap, as the disks' queues let them, and the
// forking thread's clock moves to the latest of theirs when they join. The
// application clock is then the region's elapsed I/O time; the sum of every
// thread's waits is kept beside it (waitSeconds). While such threads run, a
// request goes into the first idle gap of its disk's timeline at or after
// its issue time that holds it (else at the end of the queue): requests
// reach the model in the order the threads make them, not in the order of
// their clocks, and a thread whose clock is behind would otherwise wait for
// requests that on the timeline come after its own. Thread runs are not
// deterministic: which thread runs which task, and so the order requests
// reach a disk, depends on timing.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_DISKMODEL_H
#define IOPOLY_RUNTIME_DISKMODEL_H

#include "core/Config.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <vector>

namespace iopoly {

class DiskModel {
public:
  DiskModel(const DiskModelParams &P, size_t NumDisks);

  /// Service time of one request of \p Bytes bytes (random positioning).
  double serviceTime(size_t Bytes, bool Sequential) const;

  struct Request {
    double Done = 0;    ///< modeled completion time
    double Service = 0; ///< its own service time
  };
  /// Queues a request on \p Disk issued at application time \p Issue.
  /// \p FileId and \p Offset detect sequential runs.
  Request submit(size_t Disk, uint64_t FileId, uint64_t Offset, size_t Bytes,
                 double Issue);

  /// The calling thread waits until \p T (no-op if already later).
  void waitUntil(double T);
  /// The calling thread's clock: its own while it runs tasks of a parallel
  /// region, the application's otherwise.
  double appClock() const;
  /// The calling thread runs tasks from now on, its clock starting at \p At.
  void enterThread(double At);
  /// The calling thread's tasks are over; returns its clock.
  double leaveThread();
  /// Every thread's waits, summed (the application clock when one thread).
  double waitSeconds() const { return static_cast<double>(WaitNanos.load()) * 1e-9; }
  double busySeconds(size_t Disk) const { return Disks[Disk].Busy; }
  bool enabled() const { return Params.enabled(); }
  /// Requests a disk keeps on its timeline for the gaps of thread runs.
  static constexpr size_t MaxRecent = 64;
  const DiskModelParams &params() const { return Params; }
  void reset();

private:
  /// One request's place on its disk's timeline.
  struct Slot {
    double Start = 0, End = 0;
    uint64_t File = ~0ULL, EndOffset = 0;
  };
  struct DiskState {
    double FreeAt = 0;   ///< when the queue drains
    double Busy = 0;     ///< total service time
    uint64_t LastFile = ~0ULL;
    uint64_t LastEnd = 0;
    /// The latest requests, in time order (thread runs fill their gaps).
    std::deque<Slot> Recent;
    double Forgotten = 0; ///< the end of the latest request no longer in Recent
  };
  /// Whether threads run the tasks of a parallel region.
  bool threadClocks() const;
  /// Drops the oldest request of \p D: no gap is sought before its end.
  static void forgetOldest(DiskState &D);
  /// Where a request of a thread of a parallel region goes on \p D: the
  /// first gap at or after \p Issue that holds it; false if none does
  /// (then at the end of the queue).
  bool placeInGap(DiskState &D, uint64_t FileId, uint64_t Offset, size_t Bytes, double Issue, Request &R);
  DiskModelParams Params;
  std::vector<DiskState> Disks;
  std::atomic<double> AppClock{0};
  std::atomic<uint64_t> WaitNanos{0};
  std::atomic<int> InRegion{0}; ///< helper threads running tasks
};

} // namespace iopoly

#endif
