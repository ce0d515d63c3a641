//===- ModelClocks.h - The disk model's clocks for the task executors -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The threads that run a region's tasks each have their own modeled clock
// (io/DiskModel.h), so that modeled_io_seconds is the region's elapsed I/O
// time, not the sum of every thread's waits.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_SCHED_MODELCLOCKS_H
#define IOPOLY_SCHED_MODELCLOCKS_H

#include "io/DiskModel.h"
#include "sched/Executor.h"

namespace iopoly::sched {

class ModelClocks final : public ThreadClocks {
public:
  explicit ModelClocks(DiskModel &M) : M(M) {}
  double now() override { return M.appClock(); }
  void waitUntil(double T) override { M.waitUntil(T); }
  void enter(double At) override { M.enterThread(At); }
  void leave() override { (void)M.leaveThread(); }

private:
  DiskModel &M;
};

} // namespace iopoly::sched

#endif
