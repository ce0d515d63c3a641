//===- WriteBehind.cpp - Writing the next victims back ahead of time ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// IOPOLY_WRITE_BEHIND: at each eviction the buffer starts writing back a
// few dirty stripes that LRU will evict next, on their disks' I/O threads.
// Which stripe is evicted does not change: a frame whose early write is in
// flight is waited for (takeVictim), and it takes no new stripe before
// that write lands on the model's timeline either (beginReplace).
//
//===----------------------------------------------------------------------===//
#include "core/StripeBuffer.h"

#include <algorithm>

namespace iopoly {

namespace {
/// Early writes judged together by the waste rule.
constexpr uint64_t WindowWrites = 64;
} // namespace

void StripeBuffer::beginCleans(Replacement &R) {
  // The frames at the LRU end go within the next few fetches. Writing the
  // dirty ones back now puts each write in its disk's queue beside the
  // reads, instead of in front of the read that will take the frame: a
  // fetch that evicts a dirty stripe waits for its write first, and that
  // write may queue on another disk (sweeps' column sums: 2.3 disks busy
  // on average where 8 could be).
  DiskModel &M = Env.Model;
  Counters &C = Env.Counters.C;
  // A program that changes the stripes at the LRU end again (lu at 1/32
  // of its data: 205,669 of 563,598 stripes written ahead; 9,617 of
  // 207,449 with this rule) pays a write for each. Where more than a quarter of a window of early writes were
  // for nothing, evictions start none for a while (a few turnovers of the
  // buffer, twice as long after each wasteful window in a row), then try
  // again. Counted in program order: deterministic.
  WriteBehindWindow &Win = WbWindow;
  if (Win.Paused) {
    --Win.Paused;
    return;
  }
  if (Win.Written >= WindowWrites) {
    bool Wasteful = Win.Again * 4 > Win.Written;
    Win.Failed = Wasteful ? std::min(Win.Failed + 1, 10u) : 0;
    if (Wasteful)
      Win.Paused = std::max<uint64_t>(WindowWrites, 4 * Env.NumFrames) << (Win.Failed - 1);
    Win.Written = Win.Again = 0;
    if (Win.Paused)
      return;
  }
  size_t Look = std::max<size_t>(4, Env.NumFrames / 16);
  for (Frame *F = LruHead; F && Look > 0 && R.Cleans.size() < 2; F = F->Next, --Look) {
    iopoly_array *A = F->Owner;
    // Shared arrays write only this rank's bytes, at sync points.
    if (F->State != FrameState::Ready || !F->Dirty || F->Flushing || A->shared())
      continue;
    size_t S = F->Stripe, D = A->Geo.diskOf(S);
    DiskModel::Request W = M.submit(D, A->fileId(D), A->Geo.fileOffset(S), Env.StripeSize, M.appClock());
    // Counted when issued, as at an eviction; taken back if it fails.
    C.Writebacks++;
    C.WriteBehind++;
    C.BytesWritten += Env.StripeSize;
    C.PerDisk[D].Writes++;
    C.PerDisk[D].BytesWritten += Env.StripeSize;
    if (ArrayCounters *PA = A->PerArray) {
      PA->Writebacks++;
      PA->BytesWritten += Env.StripeSize;
    }
    trace(TraceWriteback | TraceWrite, A, S);
    F->Flushing = true;
    F->Dirty = false;
    F->WrittenAhead = true;
    F->WrittenAt = W.Done;
    syncView(F); // read-only: a write during the copy makes it dirty again
    R.Cleans.push_back({F, A, S, W.Service});
    Win.Written++;
  }
}

void StripeBuffer::startCleans(const Replacement &R) {
  for (const Replacement::Clean &C : R.Cleans)
    Env.Workers.submit(C.A->Geo.diskOf(C.S), [this, C] { runClean(C); });
}

void StripeBuffer::runClean(const Replacement::Clean &Cl) {
  // The frame cannot change hands meanwhile: eviction waits for a frame
  // being written (takeVictim), and closing flushes, which waits too.
  Status E = Env.IO.write(*Cl.A, Cl.S, Cl.F->Data, Cl.Service);
  std::lock_guard<std::mutex> G(Mu);
  Frame *F = Cl.F;
  F->Flushing = false;
  Counters &C = Env.Counters.C;
  if (E) {
    // Nothing is lost: the stripe is dirty again, and its eviction or the
    // next flush writes it or says why it cannot.
    F->Dirty = true;
    F->WrittenAhead = false;
    size_t D = Cl.A->Geo.diskOf(Cl.S);
    C.WriteErrors++;
    C.Writebacks--;
    C.WriteBehind--;
    C.BytesWritten -= Env.StripeSize;
    C.PerDisk[D].Writes--;
    C.PerDisk[D].BytesWritten -= Env.StripeSize;
    if (ArrayCounters *PA = Cl.A->PerArray) {
      PA->Writebacks--;
      PA->BytesWritten -= Env.StripeSize;
    }
  } else {
    Cl.A->writtenToDisk(Cl.S);
  }
  syncView(F);
  CV.notify_all();
}

} // namespace iopoly
