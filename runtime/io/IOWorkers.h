//===- IOWorkers.h - One background I/O thread per disk ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Prefetches (and the write-backs they force) run on the thread of the disk
// they read, so requests to different disks proceed in parallel as in a
// striped storage system while each disk sees one FIFO queue. Threads start
// on first use; stop() drains the queues and joins them.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_IOWORKERS_H
#define IOPOLY_RUNTIME_IOWORKERS_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace iopoly {

class IOWorkers {
public:
  /// With \p Inline, jobs run on the submitting thread (no threads).
  IOWorkers(size_t NumDisks, bool Inline);
  ~IOWorkers() { stop(); }
  /// Also run jobs inline while \p Now says so (asked at every submit;
  /// the MPI-IO backend allows threads only once MPI runs at
  /// MPI_THREAD_MULTIPLE, which may happen after the runtime started).
  void setInlineWhile(std::function<bool()> Now) { InlineNow = std::move(Now); }
  /// Queues \p Job on the thread of \p Disk.
  void submit(size_t Disk, std::function<void()> Job);
  /// Runs every queued job, then joins the threads. Later submits run
  /// inline on the caller.
  void stop();

private:
  struct Worker {
    std::mutex Mu;
    std::condition_variable CV;
    std::deque<std::function<void()>> Queue;
    std::thread Thread;
    bool Started = false, Stopping = false;
  };
  void run(Worker &W);
  std::vector<std::unique_ptr<Worker>> Workers;
  std::mutex StopMu;
  bool Stopped = false;
  bool Inline = false;
  std::function<bool()> InlineNow;
};

} // namespace iopoly

#endif
