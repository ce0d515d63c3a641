//===- StripeIO.cpp - Reading and writing one stripe -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "io/StripeIO.h"

#include <chrono>
#include <thread>

namespace iopoly {

using Clock = std::chrono::steady_clock;

StripeIO::StripeIO(const DiskModel &Model, bool ModelWait, RetryPolicy Retry,
                   std::atomic<uint64_t> &IoNanos, size_t NumDisks)
    : Model(Model), ModelWait(ModelWait), Retry(Retry), IoNanos(IoNanos),
      DiskQueues(new std::mutex[NumDisks]) {}

template <typename Fn>
Status StripeIO::timed(size_t Disk, double Service, Fn Op) {
  std::unique_lock<std::mutex> Q;
  if (ModelWait && Model.enabled())
    Q = std::unique_lock<std::mutex>(DiskQueues[Disk]);
  Clock::time_point T0 = Clock::now();
  Status S = Op();
  if (Q.owns_lock())
    std::this_thread::sleep_until(T0 + std::chrono::duration<double>(Service));
  IoNanos += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - T0).count());
  return S;
}

Status StripeIO::read(iopoly_array &A, size_t Stripe, char *Data, double Service) {
  size_t Disk = A.Geo.diskOf(Stripe);
  size_t S = A.Geo.StripeSize;
  return timed(Disk, Service, [&] {
    return readFully(*A.Files[Disk], Data, S, A.Geo.fileOffset(Stripe), A.Paths[Disk], Retry);
  });
}

Status StripeIO::write(iopoly_array &A, size_t Stripe, const char *Data, double Service) {
  size_t Disk = A.Geo.diskOf(Stripe);
  size_t S = A.Geo.StripeSize;
  return timed(Disk, Service, [&] {
    return writeFully(*A.Files[Disk], Data, S, A.Geo.fileOffset(Stripe), A.Paths[Disk], Retry);
  });
}

Status StripeIO::writeRuns(iopoly_array &A, size_t Stripe, const char *Data, const std::vector<IoRun> &Runs,
                           double Service) {
  size_t Disk = A.Geo.diskOf(Stripe);
  uint64_t Base = A.Geo.fileOffset(Stripe);
  return timed(Disk, Service, [&] {
    for (const IoRun &R : Runs)
      if (Status S = writeFully(*A.Files[Disk], Data + R.Offset, R.Len, Base + R.Offset, A.Paths[Disk], Retry))
        return S;
    return Status();
  });
}

} // namespace iopoly
