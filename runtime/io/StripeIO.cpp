//===- StripeIO.cpp - Reading and writing one stripe -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "io/StripeIO.h"

#include "core/Checksum.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <unistd.h>

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

namespace {

/// Offset of the 4-byte sum of \p Stripe in its disk's <name>.sum.
off_t sumOffset(const iopoly_array &A, size_t Stripe) { return static_cast<off_t>(A.Geo.slotOf(Stripe) * 4); }

Status checkSum(const iopoly_array &A, size_t Stripe, const char *Data) {
  size_t Disk = A.Geo.diskOf(Stripe);
  uint32_t Stored = 0;
  ssize_t R;
  do
    R = ::pread(A.SumFds[Disk], &Stored, 4, sumOffset(A, Stripe));
  while (R < 0 && errno == EINTR);
  if (R != 4)
    return Status::error(ErrorCode::IO, format("cannot read the checksum of block %zu of array '%s' from '%s': %s",
                                               Stripe, A.Name.c_str(), A.SumPaths[Disk].c_str(),
                                               R < 0 ? std::strerror(errno) : "short file"));
  uint32_t Got = stripeSum(Data, A.Geo.StripeSize, A.ZeroCrc);
  if (Got != Stored)
    return Status::error(ErrorCode::Corrupt,
                         format("checksum mismatch in block %zu of array '%s' ('%s' at offset %llu): the data on disk "
                                "is not what was written (stored %08x, computed %08x)",
                                Stripe, A.Name.c_str(), A.Paths[Disk].c_str(),
                                static_cast<unsigned long long>(A.Geo.fileOffset(Stripe)), Stored, Got));
  return {};
}

Status storeSum(const iopoly_array &A, size_t Stripe, const char *Data) {
  size_t Disk = A.Geo.diskOf(Stripe);
  uint32_t Sum = stripeSum(Data, A.Geo.StripeSize, A.ZeroCrc);
  ssize_t R;
  do
    R = ::pwrite(A.SumFds[Disk], &Sum, 4, sumOffset(A, Stripe));
  while (R < 0 && errno == EINTR);
  if (R != 4)
    return Status::error(ErrorCode::IO, format("cannot write the checksum of block %zu of array '%s' to '%s': %s",
                                               Stripe, A.Name.c_str(), A.SumPaths[Disk].c_str(),
                                               R < 0 ? std::strerror(errno) : "short write"));
  return {};
}

} // namespace

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
  Status R = timed(Disk, Service, [&] { return move(A, Stripe, 0, Data, A.Geo.StripeSize, /*Write=*/false); });
  if (R.ok() && A.Checksums)
    R = checkSum(A, Stripe, Data);
  return R;
}

Status StripeIO::write(iopoly_array &A, size_t Stripe, const char *Data, double Service) {
  size_t Disk = A.Geo.diskOf(Stripe);
  // The headers say "dirty" before any data of a new epoch lands
  // (core/ArrayState.cpp).
  if (Status B = beginStripeWrite(A))
    return B;
  Status W = timed(Disk, Service, [&] {
    return move(A, Stripe, 0, const_cast<char *>(Data), A.Geo.StripeSize, /*Write=*/true);
  });
  if (W.ok() && A.Checksums)
    W = storeSum(A, Stripe, Data);
  endStripeWrite(A);
  return W;
}

// Shared arrays only (SharedArrays.cpp): never journaled or checksummed.
Status StripeIO::writeRuns(iopoly_array &A, size_t Stripe, const char *Data, const std::vector<IoRun> &Runs,
                           double Service) {
  size_t Disk = A.Geo.diskOf(Stripe);
  if (Status B = beginStripeWrite(A))
    return B;
  Status W = timed(Disk, Service, [&] {
    for (const IoRun &R : Runs)
      if (Status S = move(A, Stripe, static_cast<uint32_t>(R.Offset), const_cast<char *>(Data) + R.Offset, R.Len,
                          /*Write=*/true))
        return S;
    return Status();
  });
  endStripeWrite(A);
  return W;
}

} // namespace iopoly
