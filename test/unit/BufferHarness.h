//===- BufferHarness.h - A stripe buffer wired to test parts ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_BUFFERHARNESS_H
#define IOPOLY_TEST_BUFFERHARNESS_H

#include "core/StripeBuffer.h"

#include <memory>

namespace iopoly {
namespace test {

struct BufferHarness {
  BufferHarness(size_t Frames, size_t Stripe, size_t Disks, bool Prefetch = true,
                const char *Model = "hdd", bool Threads = true, unsigned IoRetries = 3, bool WriteBehind = false)
      : Counters(Disks), Workers(Disks, !Threads) {
    DiskModelParams P;
    (void)parseDiskModel(Model, P);
    ModelPtr = std::make_unique<DiskModel>(P, Disks);
    RetryPolicy R;
    R.IoRetries = IoRetries;
    R.SleepMicros = 1;
    IO = std::make_unique<StripeIO>(*ModelPtr, false, R, Counters.IoNanos, Disks);
    BufferEnv Env{Stripe, Frames, Prefetch, Counters, *ModelPtr, Trace, Workers, *IO};
    Env.WriteBehind = WriteBehind;
    Buffer = std::make_unique<StripeBuffer>(Env);
  }
  ~BufferHarness() { Workers.stop(); }
  /// Registers \p A with the counters (distinct-stripe bits).
  void track(iopoly_array &A) { A.Fetched = Counters.fetchedBits(A.Name, A.Geo.numStripes()); }

  Stats Counters;
  std::unique_ptr<DiskModel> ModelPtr;
  TraceWriter Trace;
  IOWorkers Workers;
  std::unique_ptr<StripeIO> IO;
  std::unique_ptr<StripeBuffer> Buffer;
};

} // namespace test
} // namespace iopoly

#endif
