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

Status StripeIO::move(iopoly_array &A, size_t Stripe, uint32_t InStripe, char *Data, size_t Bytes, bool Write) {
  size_t Disk = A.Geo.diskOf(Stripe);
  uint64_t Off = A.Geo.fileOffset(Stripe) + InStripe;
  RouteInfo Info;
  Status S;
  if (StripeRouter *R = router())
    S = R->transfer(A, Stripe, Off, InStripe, Data, Bytes, Write, Info);
  else if (Write)
    S = writeFully(*A.Files[Disk], Data, Bytes, Off, A.Paths[Disk], Retry);
  else
    S = readFully(*A.Files[Disk], Data, Bytes, Off, A.Paths[Disk], Retry);
  if (Write && S.ok() && A.WrittenSinceSync)
    A.WrittenSinceSync[Disk] += Bytes;
  if (S.ok())
    record(A, Stripe, InStripe, Bytes, Write, Info);
  return S;
}

void StripeIO::record(const iopoly_array &A, size_t Stripe, uint32_t InStripe, size_t Bytes, bool Write,
                      const RouteInfo &Info) {
  size_t Disk = A.Geo.diskOf(Stripe);
  if (Trace && Trace->active()) {
    TraceRequest Rq;
    Rq.Write = Write;
    Rq.Level = Info.Level;
    Rq.Disk = static_cast<uint16_t>(Disk);
    Rq.Array = A.Id;
    Rq.Stripe = Stripe;
    Rq.Offset = InStripe;
    Rq.Bytes = static_cast<uint32_t>(Bytes);
    Rq.L2Seq = Info.L2Seq;
    Rq.L3Seq = Info.L3Seq;
    Rq.TimeNs = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - Start).count());
    Rq.LatencyNs = static_cast<uint64_t>(Info.Latency * 1e9);
    Rq.FileKey = fileKey(A.Paths[Disk]);
    Trace->request(Rq);
  }
}

Status StripeIO::read(iopoly_array &A, size_t Stripe, char *Data, double Service) {
  size_t Disk = A.Geo.diskOf(Stripe);
  return timed(Disk, Service, [&] { return move(A, Stripe, 0, Data, A.Geo.StripeSize, /*Write=*/false); });
}

Status StripeIO::write(iopoly_array &A, size_t Stripe, const char *Data, double Service) {
  size_t Disk = A.Geo.diskOf(Stripe);
  return timed(Disk, Service, [&] {
    return move(A, Stripe, 0, const_cast<char *>(Data), A.Geo.StripeSize, /*Write=*/true);
  });
}

Status StripeIO::writeRuns(iopoly_array &A, size_t Stripe, const char *Data, const std::vector<IoRun> &Runs,
                           double Service) {
  size_t Disk = A.Geo.diskOf(Stripe);
  return timed(Disk, Service, [&] {
    for (const IoRun &R : Runs)
      if (Status S = move(A, Stripe, static_cast<uint32_t>(R.Offset), const_cast<char *>(Data) + R.Offset, R.Len,
                          /*Write=*/true))
        return S;
    return Status();
  });
}

} // namespace iopoly
