//===- DiskModel.cpp - Deterministic model of T striped disks --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "io/DiskModel.h"

#include <algorithm>
#include <cmath>

namespace iopoly {

DiskModel::DiskModel(const DiskModelParams &P, size_t NumDisks)
    : Params(P), Disks(NumDisks) {}

double DiskModel::serviceTime(size_t Bytes, bool Sequential) const {
  if (!Params.enabled())
    return 0;
  return (Sequential ? Params.SeqLatencySec : Params.LatencySec) +
         static_cast<double>(Bytes) / Params.BytesPerSec;
}

DiskModel::Request DiskModel::submit(size_t Disk, uint64_t FileId,
                                     uint64_t Offset, size_t Bytes,
                                     double Issue) {
  if (!Params.enabled())
    return {Issue, 0};
  DiskState &D = Disks[Disk];
  Request R;
  if (threadClocks() && placeInGap(D, FileId, Offset, Bytes, Issue, R))
    return R;
  bool Seq = D.LastFile == FileId && D.LastEnd == Offset;
  double Service = serviceTime(Bytes, Seq);
  double Start = std::max(Issue, D.FreeAt);
  D.FreeAt = Start + Service;
  D.Busy += Service;
  D.LastFile = FileId;
  D.LastEnd = Offset + Bytes;
  if (D.Recent.size() == MaxRecent)
    forgetOldest(D);
  D.Recent.push_back({Start, D.FreeAt, FileId, Offset + Bytes});
  return {D.FreeAt, Service};
}

void DiskModel::forgetOldest(DiskState &D) {
  // No gap before a forgotten request: the disk may have been busy there.
  D.Forgotten = std::max(D.Forgotten, D.Recent.front().End);
  D.Recent.pop_front();
}

bool DiskModel::placeInGap(DiskState &D, uint64_t FileId, uint64_t Offset, size_t Bytes, double Issue, Request &R) {
  // Requests reach the model in the order the threads make them, not in
  // the order of their clocks: a thread whose clock is behind asks for a
  // stripe at a time when the disk, on the timeline, was idle. FIFO in
  // arrival order would make it wait for requests that (on the timeline)
  // come after its own, and so drag every thread's clock to the latest
  // one's. It is served in the first idle gap that holds it instead.
  for (size_t K = 0; K < D.Recent.size(); ++K) {
    const Slot *Prev = K ? &D.Recent[K - 1] : nullptr;
    double Start = std::max(Issue, Prev ? Prev->End : D.Forgotten);
    if (Start >= D.Recent[K].Start)
      continue;
    bool Seq = Prev && Prev->File == FileId && Prev->EndOffset == Offset;
    double Service = serviceTime(Bytes, Seq);
    if (Start + Service > D.Recent[K].Start)
      continue;
    D.Busy += Service;
    D.Recent.insert(D.Recent.begin() + static_cast<long>(K), Slot{Start, Start + Service, FileId, Offset + Bytes});
    if (D.Recent.size() > MaxRecent)
      forgetOldest(D);
    R = {Start + Service, Service};
    return true;
  }
  return false;
}

namespace {
/// The clock of a thread running tasks, and whose model it belongs to.
struct ThreadClock {
  const DiskModel *Model = nullptr;
  double Clock = 0;
};
thread_local ThreadClock Own;
} // namespace

bool DiskModel::threadClocks() const { return InRegion.load(std::memory_order_relaxed) > 0; }

// The application's clock is atomic only so that a task thread's read of
// it, which the compiler may speculate beside the read of its own clock,
// is not a data race; one thread at a time writes it.
double DiskModel::appClock() const {
  return Own.Model == this ? Own.Clock : AppClock.load(std::memory_order_relaxed);
}

void DiskModel::waitUntil(double T) {
  double Now = appClock();
  if (T <= Now)
    return;
  WaitNanos.fetch_add(static_cast<uint64_t>(std::llround((T - Now) * 1e9)), std::memory_order_relaxed);
  if (Own.Model == this)
    Own.Clock = T;
  else
    AppClock.store(T, std::memory_order_relaxed);
}

void DiskModel::enterThread(double At) {
  InRegion.fetch_add(1, std::memory_order_relaxed);
  Own.Model = this;
  Own.Clock = At;
}

double DiskModel::leaveThread() {
  double Clock = appClock();
  if (Own.Model == this) {
    Own = ThreadClock();
    InRegion.fetch_sub(1, std::memory_order_relaxed);
  }
  return Clock;
}

void DiskModel::reset() {
  for (DiskState &D : Disks)
    D = DiskState();
  AppClock.store(0, std::memory_order_relaxed);
  WaitNanos = 0;
}

} // namespace iopoly
