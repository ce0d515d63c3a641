//===- StripeIO.h - Reading and writing one stripe --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The only code that moves stripe bytes between a frame and a disk file:
// whole-slot transfers through RetryIO, measured into io_seconds and, with
// IOPOLY_MODEL_WAIT=1, stretched to the modeled service time while holding
// that disk's queue so that wall time shows the model too.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_STRIPEIO_H
#define IOPOLY_RUNTIME_STRIPEIO_H

#include "core/Array.h"
#include "io/DiskModel.h"
#include "io/RetryIO.h"
#include "io/StripeRouter.h"
#include "core/Trace.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace iopoly {

class StripeIO {
public:
  StripeIO(const DiskModel &Model, bool ModelWait, RetryPolicy Retry,
           std::atomic<uint64_t> &IoNanos, size_t NumDisks);
  /// \p Service is the modeled service time (DiskModel::submit).
  /// Reads the slot of \p Stripe of \p A into \p Data (StripeSize bytes).
  Status read(iopoly_array &A, size_t Stripe, char *Data, double Service);
  /// Writes the slot of \p Stripe of \p A from \p Data.
  Status write(iopoly_array &A, size_t Stripe, const char *Data,
               double Service);

  /// Writes only \p Runs (offsets within the stripe) of \p Data: the
  /// bytes a rank changed in a stripe of a shared array.
  Status writeRuns(iopoly_array &A, size_t Stripe, const char *Data, const std::vector<IoRun> &Runs,
                   double Service);

  /// Sends every later transfer through \p R (a storage-cache hierarchy).
  void setRouter(StripeRouter *R) { Router.store(R, std::memory_order_release); }
  StripeRouter *router() const { return Router.load(std::memory_order_acquire); }
  /// Records every transfer in \p T (IOPOLY_TRACE, records 'R').
  void setTrace(TraceWriter *T) { Trace = T; }

  /// One transfer of part of a stripe, routed or not, recorded (no
  /// modeled wait).
  Status move(iopoly_array &A, size_t Stripe, uint32_t InStripe, char *Data, size_t Bytes, bool Write);
  /// Records a transfer made elsewhere (a sync point's collective call).
  void record(const iopoly_array &A, size_t Stripe, uint32_t InStripe, size_t Bytes, bool Write,
              const RouteInfo &Info = RouteInfo());

private:
  std::atomic<StripeRouter *> Router{nullptr};
  TraceWriter *Trace = nullptr;
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
  template <typename Fn> Status timed(size_t Disk, double Service, Fn Op);
  const DiskModel &Model;
  bool ModelWait;
  RetryPolicy Retry;
  std::atomic<uint64_t> &IoNanos;
  std::unique_ptr<std::mutex[]> DiskQueues; ///< serialize a disk when waiting
};

} // namespace iopoly

#endif
