//===- StripeBuffer.cpp - The LRU stripe buffer with pinning ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/StripeBuffer.h"
#include "core/Progress.h"

#include "iopoly.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sys/mman.h>

namespace iopoly {

StripeBuffer::StripeBuffer(const BufferEnv &E)
    : Env(E), Memory(E.NumFrames, E.StripeSize), Start(std::chrono::steady_clock::now()),
      Spill(E.StripeSize, E.SpillDir) {}

StripeBuffer::~StripeBuffer() {
  for (Frame &F : Frames) // twins of stripes still dirty (a buffer dropped without a flush)
    delete[] F.Twin;
}

void StripeBuffer::syncView(Frame *F) {
  if (!F->Owner || !Memory.hasViews(*F->Owner))
    return;
  // Writable while dirty or attached for writing; read-only otherwise, so
  // that the first write of code built without the plugin faults and marks
  // the stripe dirty (memory/FaultService.h).
  ViewState Want = F->State != FrameState::Ready  ? ViewState::None
                   : (F->Dirty || F->WriteHeld) ? ViewState::ReadWrite
                                                  : ViewState::ReadOnly;
  Memory.setView(*F->Owner, F->Stripe, F->Index, F->View, Want);
  F->View = Want;
}

void StripeBuffer::dropView(Frame *F) {
  if (F->Owner && F->View != ViewState::None)
    Memory.setView(*F->Owner, F->Stripe, F->Index, F->View, ViewState::None);
  F->View = ViewState::None;
}

void StripeBuffer::lruUnlink(Frame *F) {
  if (!F->InLru)
    return;
  (F->Prev ? F->Prev->Next : LruHead) = F->Next;
  (F->Next ? F->Next->Prev : LruTail) = F->Prev;
  F->Prev = F->Next = nullptr;
  F->InLru = false;
}

void StripeBuffer::lruPushBack(Frame *F) {
  F->Prev = LruTail;
  F->Next = nullptr;
  (LruTail ? LruTail->Next : LruHead) = F;
  LruTail = F;
  F->InLru = true;
}

void StripeBuffer::lruPushFront(Frame *F) {
  F->Prev = nullptr;
  F->Next = LruHead;
  (LruHead ? LruHead->Prev : LruTail) = F;
  LruHead = F;
  F->InLru = true;
}

void StripeBuffer::trace(uint8_t Kind, const iopoly_array *A, size_t S) {
  if (!Env.Trace.active())
    return;
  TraceEvent E;
  E.Kind = Kind;
  E.Disk = static_cast<uint16_t>(A->Geo.diskOf(S));
  E.Array = A->Id;
  E.Stripe = S;
  E.TimeNs = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - Start)
                                       .count());
  Env.Trace.event(E);
}

Status StripeBuffer::bufferFullError(const iopoly_array *A, size_t S) {
  std::map<std::string, size_t> Holders;
  for (const Frame &F : Frames)
    if (F.Pins && F.Owner)
      Holders[F.Owner->Name] += 1;
  std::string Who;
  for (const auto &KV : Holders)
    Who += format("%s'%s' %zu", Who.empty() ? "" : ", ", KV.first.c_str(), KV.second);
  return Status::error(ErrorCode::BufferFull, format(
      "stripe buffer full: cannot bring in block %zu of array '%s' because all %zu frames are attached "
      "(%s); release blocks first or raise IOPOLY_BUFFER (now %zu bytes of %zu-byte stripes)",
      S, A->Name.c_str(), Env.NumFrames, Who.c_str(), Env.NumFrames * Env.StripeSize, Env.StripeSize));
}

Status StripeBuffer::takeVictim(Lock &L, bool Wait, Frame *&V) {
  while (true) {
    if (!FreeList.empty()) {
      V = FreeList.back();
      FreeList.pop_back();
      return {};
    }
    if (Frames.size() < Env.NumFrames) {
      // A frame never used so far: its memory is touched only now.
      Frames.emplace_back();
      V = &Frames.back();
      V->Index = Frames.size() - 1;
      V->Data = Memory.frame(V->Index);
      return {};
    }
    Frame *H = LruHead;
    if (!H)
      return Status::error(ErrorCode::BufferFull, "every frame is attached"); // caller words the message
    if (H->State != FrameState::Ready || H->Flushing) {
      // A prefetch or flush still in flight at the LRU end: it is the
      // victim LRU names, so wait for it rather than pick another one.
      if (!Wait)
        return Status::error(ErrorCode::Busy, "the LRU victim is in flight");
      CV.wait(L);
      continue;
    }
    lruUnlink(H);
    V = H;
    return {};
  }
}

StripeBuffer::Replacement StripeBuffer::beginReplace(Frame *V, iopoly_array *A,
                                                     size_t S, bool Pin,
                                                     bool SkipRead,
                                                     bool IsPrefetch) {
  Counters &C = Env.Counters.C;
  DiskModel &M = Env.Model;
  Replacement R;
  R.F = V;
  R.A = A;
  R.S = S;
  R.SkipRead = SkipRead;
  double Issue = M.appClock();
  bool Evicted = V->Owner;
  if (Evicted && V->WrittenAhead)
    Issue = std::max(Issue, V->WrittenAt); // its old stripe is still being written (modeled)
  V->WrittenAhead = false;
  if (V->Owner) {
    dropView(V);
    C.Evictions++;
    if (V->Prefetched) {
      C.PrefetchWasted++;
      V->Owner->HintsWasted.fetch_add(1, std::memory_order_relaxed);
    }
    trace(TraceEvict, V->Owner, V->Stripe);
    size_t WriteBytes = Env.StripeSize;
    if (V->Dirty && V->Owner->shared()) {
      // Only the bytes this rank changed go back; none changed: clean.
      R.Runs = dirtyRuns(V);
      WriteBytes = 0;
      for (const IoRun &Run : R.Runs)
        WriteBytes += Run.Len;
      if (R.Runs.empty()) {
        V->Dirty = false;
        freeTwin(V);
      } else if (!SharedWriteThrough.load(std::memory_order_relaxed) && V->Owner->Grp->size() > 1) {
        // Outside a distributed loop, with other ranks: private until the
        // next sync point.
        bool Whole = !V->Twin;
        if (Status E = Spill.reserve(V->Owner, V->Stripe, Whole, R.OutSlot)) {
          if (!SpillWarned)
            std::fprintf(stderr, "iopoly: warning: %s; evicted stripes of shared arrays are written through, and "
                                 "ranks that all update the same elements outside distributed loops may then apply "
                                 "an update twice\n", E.message().c_str());
          SpillWarned = true;
        } else {
          R.ToSpill = true;
          R.OutWhole = Whole;
        }
      }
    }
    if (V->Dirty && R.ToSpill) {
      R.WriteBack = true;
      V->OldOwner = V->Owner;
      V->OldStripe = V->Stripe;
      // Not a write of the array (the trace shows the eviction only).
      Issue = modelSpill(Spill.slotBytes(R.OutWhole), R.OutSlot, /*Write=*/true, Issue);
    } else if (V->Dirty) {
      R.WriteBack = true;
      V->OldOwner = V->Owner;
      V->OldStripe = V->Stripe;
      size_t D = V->Owner->Geo.diskOf(V->Stripe);
      DiskModel::Request W = M.submit(D, V->Owner->fileId(D), V->Owner->Geo.fileOffset(V->Stripe),
                                      WriteBytes, Issue);
      R.WriteService = W.Service;
      // The frame can be refilled only once its old contents are out.
      Issue = W.Done;
      // Counted when issued (deterministic); taken back if the write fails.
      C.Writebacks++;
      C.BytesWritten += WriteBytes;
      C.PerDisk[D].Writes++;
      C.PerDisk[D].BytesWritten += WriteBytes;
      if (ArrayCounters *PA = V->Owner->PerArray) {
        PA->Writebacks++;
        PA->BytesWritten += WriteBytes;
      }
      trace(TraceWriteback | TraceWrite, V->Owner, V->Stripe);
    } else {
      V->Owner->Table.set(V->Stripe, nullptr);
    }
  }
  V->Owner = A;
  V->Stripe = S;
  V->Pins = Pin ? 1 : 0;
  PinnedFrames += V->Pins;
  C.PeakPinned = std::max<uint64_t>(C.PeakPinned, PinnedFrames);
  V->Dirty = false;
  V->WriteHeld = false;
  V->Prefetched = IsPrefetch;
  V->State = R.WriteBack ? FrameState::Writing : FrameState::Loading;
  A->Table.set(S, V);
  size_t D = A->Geo.diskOf(S);
  const SpillStore::Entry *Spilled = A->shared() ? Spill.find(A, S) : nullptr;
  if (SkipRead) {
    if (Spilled) // every byte is written again
      Spill.forget(A, S);
    C.Overwrites++;
    R.Arrival = Replacement::Overwrite;
    V->ReadyAt = Issue;
  } else if (Spilled) {
    // This rank's own changes since the last sync point, with their twin.
    R.Arrival = Replacement::FromSpill;
    R.InSlot = Spilled->Slot;
    R.InWhole = Spilled->Whole;
    V->ReadyAt = modelSpill(Spill.slotBytes(Spilled->Whole), Spilled->Slot, /*Write=*/false, Issue);
  } else if (A->zeroOnDisk(S)) {
    // Never written since the file was created: zeros, no disk request.
    C.ZeroFills++;
    R.Arrival = Replacement::ZeroFill;
    R.SkipRead = true;
    V->ReadyAt = Issue;
  } else {
    DiskModel::Request Rd = M.submit(D, A->fileId(D), A->Geo.fileOffset(S), Env.StripeSize, Issue);
    V->ReadyAt = Rd.Done;
    R.ReadService = Rd.Service;
    C.Fetches++;
    C.BytesRead += Env.StripeSize;
    C.PerDisk[D].Fetches++;
    C.PerDisk[D].BytesRead += Env.StripeSize;
    if (A->Fetched)
      Stats::markFetched(*A->Fetched, S);
    if (ArrayCounters *PA = A->PerArray) {
      PA->Fetches++;
      PA->BytesRead += Env.StripeSize;
      noteFetch(*A, Env.NumFrames * Env.StripeSize);
    }
  }
  if (Evicted && Env.WriteBehind)
    beginCleans(R);
  return R;
}

void StripeBuffer::undoArrival(const Replacement &R) {
  Counters &C = Env.Counters.C;
  if (R.Arrival == Replacement::Overwrite) {
    C.Overwrites--;
  } else if (R.Arrival == Replacement::ZeroFill) {
    C.ZeroFills--;
  } else if (R.Arrival == Replacement::FromSpill) {
    C.SpillReads--;
    C.SpillBytes -= Spill.slotBytes(R.InWhole);
  } else {
    size_t D = R.A->Geo.diskOf(R.S);
    C.Fetches--;
    C.BytesRead -= Env.StripeSize;
    C.PerDisk[D].Fetches--;
    C.PerDisk[D].BytesRead -= Env.StripeSize;
    if (ArrayCounters *PA = R.A->PerArray) {
      PA->Fetches--;
      PA->BytesRead -= Env.StripeSize;
    }
  }
}

void StripeBuffer::revertToOldStripe(const Replacement &R) {
  Frame *F = R.F;
  undoArrival(R);
  R.A->Table.set(R.S, nullptr);
  F->Owner = F->OldOwner;
  F->Stripe = F->OldStripe;
  F->OldOwner = nullptr;
  F->Dirty = true;
  F->WriteHeld = false; // set for the new stripe by pinAhead, not held now
  if (F->Pins)          // the pin was taken for the new stripe
    --PinnedFrames;
  F->Pins = 0;
  F->Prefetched = false;
  F->State = FrameState::Ready;
  syncView(F);
  if (!F->InLru)
    lruPushBack(F);
  CV.notify_all();
}

Status StripeBuffer::runReplace(const Replacement &R) {
  Frame *F = R.F;
  if (R.WriteBack && R.ToSpill) {
    Status W = Spill.write(R.OutSlot, F->Data, R.OutWhole ? nullptr : F->Twin);
    std::lock_guard<std::mutex> G(Mu);
    Counters &C = Env.Counters.C;
    if (W) {
      // As a failed write-back: the frame keeps its old, dirty stripe.
      C.WriteErrors++;
      C.SharedSpills--;
      C.SpillBytes -= Spill.slotBytes(R.OutWhole);
      C.Evictions--;
      Spill.forget(F->OldOwner, F->OldStripe);
      revertToOldStripe(R);
      return Status::wrap(W, format("cannot make room for block %zu of array '%s': block %zu of shared array '%s' "
                                    "could not be set aside (the data stays in the buffer): %s",
                                    R.S, R.A->Name.c_str(), F->Stripe, F->Owner->Name.c_str(), W.message().c_str()));
    }
    Spill.markWritten(F->OldOwner, F->OldStripe);
    F->OldOwner->Table.set(F->OldStripe, nullptr);
    F->OldOwner = nullptr;
    freeTwin(F);
    F->State = FrameState::Loading;
    CV.notify_all();
  } else if (R.WriteBack) {
    bool Shared = F->OldOwner->shared();
    Status W = Shared ? Env.IO.writeRuns(*F->OldOwner, F->OldStripe, F->Data, R.Runs, R.WriteService)
                      : Env.IO.write(*F->OldOwner, F->OldStripe, F->Data, R.WriteService);
    std::lock_guard<std::mutex> G(Mu);
    Counters &C = Env.Counters.C;
    size_t OD = F->OldOwner->Geo.diskOf(F->OldStripe);
    size_t Bytes = Env.StripeSize;
    if (Shared) {
      Bytes = 0;
      for (const IoRun &Run : R.Runs)
        Bytes += Run.Len;
    }
    if (W) {
      // Keep the only copy of the old data: the frame reverts to its old,
      // still dirty, stripe and the new stripe is not brought in. Nothing
      // was evicted, written or read: the counters say so.
      C.WriteErrors++;
      C.Writebacks--;
      C.BytesWritten -= Bytes;
      C.PerDisk[OD].Writes--;
      C.PerDisk[OD].BytesWritten -= Bytes;
      C.Evictions--;
      if (ArrayCounters *PA = F->OldOwner->PerArray) {
        PA->Writebacks--;
        PA->BytesWritten -= Bytes;
      }
      revertToOldStripe(R);
      return Status::wrap(W, format("cannot make room for block %zu of array '%s': write-back of block %zu of "
                                    "array '%s' failed (the data stays in the buffer): %s",
                                    R.S, R.A->Name.c_str(), F->Stripe, F->Owner->Name.c_str(),
                                    W.message().c_str()));
    }
    F->OldOwner->Table.set(F->OldStripe, nullptr);
    F->OldOwner->writtenToDisk(F->OldStripe);
    F->OldOwner = nullptr;
    freeTwin(F);
    F->State = FrameState::Loading;
    CV.notify_all();
  }
  Status Rd;
  char *SpillTwin = nullptr;
  if (R.SkipRead) {
    std::memset(F->Data, 0, Env.StripeSize);
  } else if (R.Arrival == Replacement::FromSpill) {
    if (!R.InWhole)
      SpillTwin = new char[Env.StripeSize];
    Rd = Spill.read(R.InSlot, F->Data, SpillTwin);
  } else {
    Rd = Env.IO.read(*R.A, R.S, F->Data, R.ReadService);
  }
  std::lock_guard<std::mutex> G(Mu);
  if (R.Arrival == Replacement::FromSpill && !Rd) {
    // Dirty again, measured against the twin it had: the bytes this rank
    // changed since the last sync point are still the ones that differ.
    freeTwin(F);
    F->Twin = SpillTwin;
    F->WholeDirty = R.InWhole;
    if (SpillTwin) {
      TwinBytes += Env.StripeSize;
      Env.Counters.C.TwinPeakBytes = std::max<uint64_t>(Env.Counters.C.TwinPeakBytes, TwinBytes);
    }
    F->Dirty = true;
    F->TwinPending = false;
    Spill.forget(R.A, R.S);
  } else {
    delete[] SpillTwin; // (the slot stays: a later attach reads it again)
  }
  if (Rd) {
    Env.Counters.C.ReadErrors++;
    undoArrival(R);
    R.A->Table.set(R.S, nullptr);
    lruUnlink(F);
    F->Owner = nullptr;
    if (F->Pins) // the pin taken for this stripe goes with it
      --PinnedFrames;
    F->Pins = 0;
    F->Prefetched = false;
    F->Dirty = F->WriteHeld = false;
    F->State = FrameState::Free;
    FreeList.push_back(F);
    CV.notify_all();
    return Status::wrap(Rd, format("cannot read block %zu of array '%s': %s", R.S, R.A->Name.c_str(),
                                   Rd.message().c_str()));
  }
  F->State = FrameState::Ready;
  if (F->TwinPending) {
    // Pinned ahead for writing: the bytes to compare with are those read.
    F->TwinPending = false;
    F->Dirty = false;
    markDirty(F, /*Whole=*/false);
  }
  syncView(F);
  CV.notify_all();
  return {};
}

void StripeBuffer::freeTwin(Frame *F) {
  if (F->Twin) {
    delete[] F->Twin;
    F->Twin = nullptr;
    TwinBytes -= Env.StripeSize;
  }
  F->WholeDirty = false;
}

double StripeBuffer::modelSpill(size_t Bytes, uint64_t Slot, bool Write, double Issue) {
  // The spill file lives beside the first disk's files.
  constexpr unsigned long long SpillFileId = ~0ULL;
  DiskModel::Request Q = Env.Model.submit(0, SpillFileId, Slot * 2 * Env.StripeSize, Bytes, Issue);
  Counters &C = Env.Counters.C;
  (Write ? C.SharedSpills : C.SpillReads)++;
  C.SpillBytes += Bytes;
  return Q.Done;
}

Status StripeBuffer::takeSpilled(const iopoly_array *A, size_t S, std::vector<char> &Data, std::vector<IoRun> &Runs,
                                 bool Forget) {
  const SpillStore::Entry *E = Spill.find(A, S);
  if (!E)
    return Status::error(format("block %zu of array '%s' is not in the private spill", S, A->Name.c_str()));
  Data.assign(Env.StripeSize, 0);
  std::vector<char> Twin(E->Whole ? 0 : Env.StripeSize);
  Env.Model.waitUntil(modelSpill(Spill.slotBytes(E->Whole), E->Slot, /*Write=*/false, Env.Model.appClock()));
  if (Status R = Spill.read(E->Slot, Data.data(), E->Whole ? nullptr : Twin.data()))
    return Status::wrap(R, format("block %zu of shared array '%s': %s", S, A->Name.c_str(), R.message().c_str()));
  Runs = joinWithinElements(dirtyRuns(Data.data(), E->Whole ? nullptr : Twin.data()), A->elementBytes(),
                            S * Env.StripeSize);
  if (Forget)
    Spill.forget(A, S);
  return {};
}

void StripeBuffer::markDirty(Frame *F, bool Whole) {
  if (F->Owner && F->Owner->shared()) {
    if (Whole) {
      freeTwin(F);
      F->WholeDirty = true;
    } else if (!F->Dirty && !F->Twin && !F->WholeDirty) {
      F->Twin = new char[Env.StripeSize];
      std::memcpy(F->Twin, F->Data, Env.StripeSize);
      TwinBytes += Env.StripeSize;
      Counters &C = Env.Counters.C;
      C.TwinPeakBytes = std::max<uint64_t>(C.TwinPeakBytes, TwinBytes);
    }
  }
  if (F->WrittenAhead) {
    F->WrittenAhead = false;
    Env.Counters.C.WriteBehindAgain++; // its write-behind was for nothing
    WbWindow.Again++;
  }
  F->Dirty = true;
}

std::vector<IoRun> joinWithinElements(std::vector<IoRun> Runs, size_t ElemSize, uint64_t StripeStart) {
  if (ElemSize <= 1 || Runs.size() < 2)
    return Runs;
  std::vector<IoRun> Out;
  Out.push_back(Runs.front());
  for (size_t K = 1; K < Runs.size(); ++K) {
    IoRun &Last = Out.back();
    uint64_t LastByte = StripeStart + Last.Offset + Last.Len - 1, FirstByte = StripeStart + Runs[K].Offset;
    if (FirstByte / ElemSize <= LastByte / ElemSize + 1)
      Last.Len = Runs[K].Offset + Runs[K].Len - Last.Offset;
    else
      Out.push_back(Runs[K]);
  }
  return Out;
}

std::vector<IoRun> StripeBuffer::dirtyRuns(const char *D, const char *T) const {
  const size_t S = Env.StripeSize;
  if (!T)
    return {{0, S}};
  // Eight bytes at a time where aligned: a few loads per unchanged word.
  auto Word = [&](size_t I, uint64_t &Z) {
    if (I % 8 || I + 8 > S)
      return false;
    uint64_t X, Y;
    std::memcpy(&X, D + I, 8);
    std::memcpy(&Y, T + I, 8);
    Z = X ^ Y;
    return true;
  };
  auto NoZeroByte = [](uint64_t Z) { return ((Z - 0x0101010101010101ULL) & ~Z & 0x8080808080808080ULL) == 0; };
  std::vector<IoRun> Runs;
  size_t I = 0;
  while (I < S) {
    uint64_t Z;
    while (I < S) { // equal bytes
      if (Word(I, Z) && Z == 0)
        I += 8;
      else if (D[I] == T[I])
        ++I;
      else
        break;
    }
    if (I == S)
      break;
    size_t Start = I;
    while (I < S) { // changed bytes
      if (Word(I, Z) && NoZeroByte(Z))
        I += 8;
      else if (D[I] != T[I])
        ++I;
      else
        break;
    }
    Runs.push_back({Start, I - Start});
  }
  return Runs;
}

void StripeBuffer::pinHit(Frame *F, const iopoly_array *A, size_t S, bool Write) {
  Counters &C = Env.Counters.C;
  C.Attaches++;
  C.Hits++;
  if (A->PerArray)
    A->PerArray->Hits++;
  if (F->Prefetched) {
    F->Prefetched = false;
    C.PrefetchUsed++;
    A->HintsUsed.fetch_add(1, std::memory_order_relaxed);
  }
  if (F->Pins++ == 0) {
    lruUnlink(F);
    ++PinnedFrames;
    C.PeakPinned = std::max<uint64_t>(C.PeakPinned, PinnedFrames);
  }
  if (Write) {
    markDirty(F, /*Whole=*/false);
    F->WriteHeld = true;
    syncView(F);
  }
  trace(TraceAttach | TraceHit | (Write ? TraceWrite : 0), A, S);
}

Status StripeBuffer::openIfPending(iopoly_array *A) {
  if (!A->Pending.load(std::memory_order_acquire) || !Env.OpenPending)
    return {};
  return Env.OpenPending(A);
}

Status StripeBuffer::attach(iopoly_array *A, size_t S, int Mode, void *&Out) {
  if (Status E = openIfPending(A)) // one load: a global waiting for MPI_Init
    return E;
  Lock L(Mu);
  Counters &C = Env.Counters.C;
  bool Write = Mode & IOPOLY_WRITE;
  while (true) {
    Frame *F = A->Table.lookup(S);
    if (F && (!F->holds(A, S) || F->State != FrameState::Ready || (Write && F->Flushing))) {
      // Arriving, or leaving through a write-back, or being written back
      // while it stays (a write now would race with the copy): wait and
      // look again.
      CV.wait(L);
      continue;
    }
    if (F) {
      pinHit(F, A, S, Write);
      Env.Model.waitUntil(F->ReadyAt);
      Out = F->Data;
      return {};
    }
    Frame *V = nullptr;
    if (takeVictim(L, /*Wait=*/true, V))
      return bufferFullError(A, S);
    if (A->Table.lookup(S)) {
      // Someone else started bringing S in while we waited for a victim.
      (V->Owner ? lruPushFront(V) : FreeList.push_back(V));
      continue;
    }
    C.Attaches++;
    bool Skip = Write && (Mode & IOPOLY_OVERWRITE);
    Replacement R = beginReplace(V, A, S, /*Pin=*/true, Skip, /*IsPrefetch=*/false);
    trace(TraceAttach | (Write ? TraceWrite : 0), A, S);
    Env.Model.waitUntil(V->ReadyAt);
    L.unlock();
    startCleans(R);
    if (Status E = runReplace(R))
      return E;
    L.lock();
    if (Write) {
      markDirty(V, /*Whole=*/Skip);
      V->WriteHeld = true;
      syncView(V);
    }
    Out = V->Data;
    return {};
  }
}

Status StripeBuffer::releaseLocked(iopoly_array *A, size_t S) {
  Frame *F = A->Table.lookup(S);
  if (!F || !F->holds(A, S) || F->Pins == 0)
    return Status::error(format("block %zu of array '%s' is not attached (release without attach)", S,
                                A->Name.c_str()));
  Env.Counters.C.Releases++;
  if (--F->Pins == 0) {
    F->WriteHeld = false;
    lruPushBack(F);
    --PinnedFrames;
  }
  return {};
}

Status StripeBuffer::release(iopoly_array *A, size_t S) {
  std::lock_guard<std::mutex> G(Mu);
  return releaseLocked(A, S);
}

Status StripeBuffer::switchAttach(iopoly_array *OldA, size_t OldFirst, size_t OldCount, iopoly_array *A,
                                  size_t S, int Mode, void *&Out) {
  {
    std::lock_guard<std::mutex> G(Mu);
    for (size_t K = 0; OldA && K < OldCount; ++K)
      if (Status E = releaseLocked(OldA, OldFirst + K))
        return E;
    Frame *F = A->Table.lookup(S);
    if (F && F->holds(A, S) && F->State == FrameState::Ready && !((Mode & IOPOLY_WRITE) && F->Flushing)) {
      pinHit(F, A, S, Mode & IOPOLY_WRITE);
      Env.Model.waitUntil(F->ReadyAt);
      Out = F->Data;
      return {};
    }
  }
  return attach(A, S, Mode, Out);
}

bool StripeBuffer::usableInPlace(Lock &L, iopoly_array *A, size_t T, bool Write, bool *Waited) {
  while (true) {
    Frame *F = A->Table.lookup(T);
    // Judged by the model's clock, not by whether the real read has landed
    // yet: what a run holds, and so the LRU order and every counter, must
    // not depend on the speed of the machine.
    if (!F || !F->holds(A, T) || F->ReadyAt > Env.Model.appClock() || (Write && !F->Dirty))
      return false;
    if (F->State == FrameState::Ready)
      return F->View != ViewState::None;
    // The model says it has arrived: wait for the real write-back of the
    // frame's old stripe and the real read.
    CV.wait(L);
    if (Waited)
      *Waited = true;
  }
}

void StripeBuffer::attachRun(iopoly_array *A, size_t S, int Mode, size_t MaxBefore, size_t MaxAfter, size_t &First,
                             size_t &Count) {
  Lock L(Mu);
  bool Write = Mode & IOPOLY_WRITE;
  auto Usable = [&](size_t T) { return usableInPlace(L, A, T, Write); };
  size_t Lo = S, Hi = S;
  // Runs may use at most half of the frames, so that the single stripes
  // other windows need always find room.
  size_t Budget = PinnedFrames < Env.NumFrames / 2 ? Env.NumFrames / 2 - PinnedFrames : 0;
  MaxAfter = std::min(MaxAfter, Budget);
  MaxBefore = std::min(MaxBefore, Budget - MaxAfter);
  while (Hi + 1 < A->Geo.numStripes() && Hi - S < MaxAfter && Usable(Hi + 1)) {
    ++Hi;
    pinHit(A->Table.lookup(Hi), A, Hi, Write);
  }
  while (Lo > 0 && S - Lo < MaxBefore && Usable(Lo - 1)) {
    --Lo;
    pinHit(A->Table.lookup(Lo), A, Lo, Write);
  }
  First = Lo;
  Count = Hi - Lo + 1;
}

bool StripeBuffer::extendRun(iopoly_array *A, size_t S, int Mode, size_t Max, size_t &First, size_t &Count) {
  Lock L(Mu);
  bool Write = Mode & IOPOLY_WRITE;
  auto Usable = [&](size_t T) { return usableInPlace(L, A, T, Write); };
  size_t Last = First + Count - 1, Lo = std::min(S, First), Hi = std::max(S, Last);
  size_t Budget = PinnedFrames < Env.NumFrames / 2 ? Env.NumFrames / 2 - PinnedFrames : 0;
  size_t Add = (Hi - Lo + 1) - Count;
  if (Hi - Lo + 1 > Max || Add > Budget)
    return false;
  // Every stripe between must be usable before any is pinned; a wait for a
  // read lets other threads in, so the check starts again after one.
  for (bool Waited = true; Waited;) {
    Waited = false;
    for (size_t T = Lo; T <= Hi && !Waited; ++T)
      if ((T < First || T > Last) && !usableInPlace(L, A, T, Write, &Waited))
        return false;
  }
  Budget = PinnedFrames < Env.NumFrames / 2 ? Env.NumFrames / 2 - PinnedFrames : 0; // after any wait
  if (Add > Budget)
    return false;
  for (size_t T = Lo; T < First; ++T)
    pinHit(A->Table.lookup(T), A, T, Write);
  for (size_t T = Last + 1; T <= Hi; ++T)
    pinHit(A->Table.lookup(T), A, T, Write);
  Budget -= Add;
  // Beyond S, in the direction of the walk.
  size_t More = std::min({Hi - Lo + 1, Max - (Hi - Lo + 1), Budget});
  if (S > Last)
    for (size_t K = 0; K < More && Hi + 1 < A->Geo.numStripes() && Usable(Hi + 1); ++K) {
      ++Hi;
      pinHit(A->Table.lookup(Hi), A, Hi, Write);
    }
  else
    for (size_t K = 0; K < More && Lo > 0 && Usable(Lo - 1); ++K) {
      --Lo;
      pinHit(A->Table.lookup(Lo), A, Lo, Write);
    }
  First = Lo;
  Count = Hi - Lo + 1;
  return true;
}

Status StripeBuffer::releaseRun(iopoly_array *A, size_t First, size_t Count) {
  std::lock_guard<std::mutex> G(Mu);
  Status First_;
  for (size_t K = 0; K < Count; ++K)
    if (Status E = releaseLocked(A, First + K))
      if (First_.ok())
        First_ = E;
  return First_;
}

Status StripeBuffer::prefetch(iopoly_array *A, size_t S, bool &Taken) {
  if (Status E = openIfPending(A))
    return E;
  Lock L(Mu);
  Counters &C = Env.Counters.C;
  C.PrefetchHints++;
  Taken = false;
  if (!Env.PrefetchEnabled) {
    C.PrefetchDropped++;
    return {};
  }
  Frame *V = nullptr;
  while (true) {
    Frame *F = A->Table.lookup(S);
    if (F && !F->holds(A, S)) {
      CV.wait(L); // its write-back is landing; then it is not resident
      continue;
    }
    if (F) {
      C.PrefetchRedundant++;
      Taken = true;
      return {};
    }
    if (takeVictim(L, /*Wait=*/true, V)) {
      C.PrefetchDropped++; // every frame is attached: a hint must not fail
      return {};
    }
    if (!A->Table.lookup(S))
      break;
    (V->Owner ? lruPushFront(V) : FreeList.push_back(V)); // raced: retry
  }
  C.PrefetchIssued++;
  Replacement R = beginReplace(V, A, S, /*Pin=*/false, /*SkipRead=*/false, /*IsPrefetch=*/true);
  trace(TracePrefetch, A, S);
  lruPushBack(V);
  L.unlock();
  Taken = true;
  Env.Workers.submit(A->Geo.diskOf(S), [this, R] { runAsync(R); });
  startCleans(R);
  return {};
}

void StripeBuffer::runAsync(const Replacement &R) {
  if (Status E = runReplace(R)) {
    std::lock_guard<std::mutex> G(Mu);
    AsyncError = E.message();
  }
}

Status StripeBuffer::pinAhead(iopoly_array *A, size_t S, int Mode, bool &Pinned) {
  if (Status E = openIfPending(A))
    return E;
  Lock L(Mu);
  bool Write = Mode & IOPOLY_WRITE;
  Pinned = false;
  while (true) {
    Frame *F = A->Table.lookup(S);
    if (F && (!F->holds(A, S) || F->State != FrameState::Ready || (Write && F->Flushing))) {
      CV.wait(L);
      continue;
    }
    if (F) {
      pinHit(F, A, S, Write);
      Pinned = true;
      return {};
    }
    Frame *V = nullptr;
    if (takeVictim(L, /*Wait=*/true, V))
      return {}; // all frames attached: the caller falls back
    if (A->Table.lookup(S)) {
      (V->Owner ? lruPushFront(V) : FreeList.push_back(V));
      continue;
    }
    Env.Counters.C.Attaches++;
    Replacement R = beginReplace(V, A, S, /*Pin=*/true, /*SkipRead=*/false, /*IsPrefetch=*/false);
    if (Write) {
      V->Dirty = V->WriteHeld = true;
      V->TwinPending = A->shared(); // the twin is taken when the read lands
    }
    trace(TraceAttach | TracePrefetch | (Write ? TraceWrite : 0), A, S);
    L.unlock();
    Pinned = true;
    Env.Workers.submit(A->Geo.diskOf(S), [this, R] { runAsync(R); });
    startCleans(R);
    return {};
  }
}

Status StripeBuffer::waitReady(iopoly_array *A, size_t S, void *&Out) {
  Lock L(Mu);
  while (true) {
    Frame *F = A->Table.lookup(S);
    if (F && F->holds(A, S) && F->State == FrameState::Ready && F->Pins) {
      Env.Model.waitUntil(F->ReadyAt);
      Out = F->Data;
      return {};
    }
    if (!F || (F->holds(A, S) && F->State == FrameState::Ready))
      return Status::error(format("block %zu of array '%s' was not brought in%s%s", S, A->Name.c_str(),
                                  AsyncError.empty() ? "" : ": ", AsyncError.c_str()));
    CV.wait(L);
  }
}

Status StripeBuffer::writeBackLocked(Lock &L, Frame *F) {
  iopoly_array *A = F->Owner;
  size_t S = F->Stripe;
  size_t D = A->Geo.diskOf(S);
  std::vector<IoRun> Runs;
  size_t Bytes = Env.StripeSize;
  if (A->shared()) {
    // The bytes this rank changed, and nothing else.
    Runs = dirtyRuns(F);
    Bytes = 0;
    for (const IoRun &Run : Runs)
      Bytes += Run.Len;
    if (Runs.empty()) {
      if (!F->WriteHeld) {
        F->Dirty = false;
        freeTwin(F);
        syncView(F);
      }
      return {};
    }
  }
  DiskModel::Request W = Env.Model.submit(D, A->fileId(D), A->Geo.fileOffset(S), Bytes,
                                          Env.Model.appClock());
  Env.Model.waitUntil(W.Done);
  trace(TraceWriteback | TraceWrite, A, S);
  // A holder that attached for writing before the copy may change the bytes
  // after it and release before the write lands: it stays dirty then too.
  bool HeldForWriting = F->WriteHeld;
  F->Flushing = true;
  F->Dirty = false;
  // Read-only again before the copy is taken, so that a write by code
  // built without the plugin during it faults and makes the frame dirty
  // again instead of being lost.
  syncView(F);
  L.unlock();
  Status E = A->shared() ? Env.IO.writeRuns(*A, S, F->Data, Runs, W.Service) : Env.IO.write(*A, S, F->Data, W.Service);
  L.lock();
  F->Flushing = false;
  Counters &C = Env.Counters.C;
  if (E) {
    F->Dirty = true;
    C.WriteErrors++;
    E = Status::wrap(E, format("cannot write back block %zu of array '%s' (the data stays in the buffer): %s", S,
                               A->Name.c_str(), E.message().c_str()));
  } else {
    C.Writebacks++;
    C.BytesWritten += Bytes;
    C.PerDisk[D].Writes++;
    C.PerDisk[D].BytesWritten += Bytes;
    if (ArrayCounters *PA = A->PerArray) {
      PA->Writebacks++;
      PA->BytesWritten += Bytes;
    }
    A->writtenToDisk(S);
    if (HeldForWriting || F->WriteHeld)
      F->Dirty = true; // attached for writing: may have changed since the copy (a twin, if any, is kept)
    else
      freeTwin(F);
    syncView(F);
  }
  CV.notify_all();
  return E;
}

Status StripeBuffer::flush(iopoly_array *A) {
  Lock L(Mu);
  // Write-behinds in flight first: one that fails leaves its stripe dirty
  // for this flush to write.
  CV.wait(L, [&] {
    for (const Frame &F : Frames)
      if (F.Flushing && (!A || F.Owner == A))
        return false;
    return true;
  });
  // Dirty stripes in (array, disk, offset) order, so that each disk sees
  // sequential runs. Each is written once: a stripe still attached for
  // writing stays dirty afterwards and is written again later.
  std::vector<Frame *> Dirty;
  for (Frame &F : Frames)
    if (F.Owner && (!A || F.Owner == A) && F.State == FrameState::Ready && F.Dirty && !F.Flushing)
      Dirty.push_back(&F);
  std::sort(Dirty.begin(), Dirty.end(), [](const Frame *X, const Frame *Y) {
    if (X->Owner->Id != Y->Owner->Id)
      return X->Owner->Id < Y->Owner->Id;
    size_t DX = X->Owner->Geo.diskOf(X->Stripe), DY = Y->Owner->Geo.diskOf(Y->Stripe);
    return DX != DY ? DX < DY : X->Stripe < Y->Stripe;
  });
  Status First;
  for (Frame *F : Dirty) {
    // The lock is dropped during each write: recheck the frame.
    if (!F->Owner || (A && F->Owner != A) || !F->Dirty || F->Flushing || F->State != FrameState::Ready)
      continue;
    if (Status E = writeBackLocked(L, F))
      if (First.ok())
        First = E;
  }
  // Write-backs started elsewhere (evictions, other flushes) must land too.
  CV.wait(L, [&] {
    for (const Frame &F : Frames)
      if ((F.State == FrameState::Writing && (!A || F.OldOwner == A)) ||
          (F.Flushing && (!A || F.Owner == A)))
        return false;
    return true;
  });
  // Stripes of shared arrays set aside since the last sync point: written
  // now (an explicit flush, or the exit of a program that did not reach
  // MPI_Finalize), so that nothing this rank changed is lost.
  for (const auto &[Owner, Stripe] : Spill.all()) {
    if (A && Owner != A)
      continue;
    iopoly_array *O = const_cast<iopoly_array *>(Owner);
    std::vector<char> Data;
    std::vector<IoRun> Runs;
    Status E = takeSpilled(O, Stripe, Data, Runs, /*Forget=*/false);
    size_t Bytes = 0;
    for (const IoRun &Run : Runs)
      Bytes += Run.Len;
    size_t D = O->Geo.diskOf(Stripe);
    if (E.ok()) {
      DiskModel::Request W = Env.Model.submit(D, O->fileId(D), O->Geo.fileOffset(Stripe), Bytes, Env.Model.appClock());
      Env.Model.waitUntil(W.Done);
      E = Env.IO.writeRuns(*O, Stripe, Data.data(), Runs, W.Service);
    }
    Counters &C = Env.Counters.C;
    if (E) {
      C.WriteErrors++;
      if (First.ok())
        First = Status::wrap(E, format("cannot write back block %zu of shared array '%s': %s", Stripe,
                                       O->Name.c_str(), E.message().c_str()));
      continue;
    }
    Spill.forget(O, Stripe);
    C.Writebacks++;
    C.BytesWritten += Bytes;
    C.PerDisk[D].Writes++;
    C.PerDisk[D].BytesWritten += Bytes;
    O->writtenToDisk(Stripe);
  }
  return First;
}

Status StripeBuffer::drop(iopoly_array *A) {
  if (size_t Pins = pinCount(A))
    return Status::error(format("array '%s' still has %zu attached block(s); release them before closing",
                                A->Name.c_str(), Pins));
  {
    // Wait for fetches in flight (prefetches) before writing anything.
    Lock L(Mu);
    CV.wait(L, [&] {
      for (const Frame &F : Frames)
        if ((F.Owner == A || F.OldOwner == A) && F.State != FrameState::Ready)
          return false;
      return true;
    });
  }
  if (Status E = flush(A))
    return E;
  Lock L(Mu);
  for (Frame &F : Frames) {
    if (F.Owner != A)
      continue;
    if (F.Pins)
      return Status::error(format("array '%s' had a block attached while closing", A->Name.c_str()));
    if (F.Dirty)
      return Status::error(format("array '%s' still has unwritten data; not closed", A->Name.c_str()));
    lruUnlink(&F);
    dropView(&F);
    freeTwin(&F);
    A->Table.set(F.Stripe, nullptr);
    F.Owner = nullptr;
    F.Prefetched = false;
    F.State = FrameState::Free;
    FreeList.push_back(&F);
  }
  return {};
}

std::vector<std::pair<size_t, std::string>> StripeBuffer::dirtyStripes(const iopoly_array *A) {
  std::lock_guard<std::mutex> G(Mu);
  std::vector<std::pair<size_t, std::string>> Out;
  for (const Frame &F : Frames) {
    // A frame whose write-back failed reverted to its old, dirty stripe.
    if (F.Owner == A && F.State == FrameState::Ready && F.Dirty)
      Out.emplace_back(F.Stripe, std::string(F.Data, A->Geo.stripeBytes(F.Stripe)));
  }
  for (size_t S : Spill.stripesOf(A)) { // set aside since the last sync point
    std::vector<char> Data;
    std::vector<IoRun> Runs;
    if (takeSpilled(A, S, Data, Runs, /*Forget=*/false).ok())
      Out.emplace_back(S, std::string(Data.data(), A->Geo.stripeBytes(S)));
  }
  std::sort(Out.begin(), Out.end(), [](const auto &X, const auto &Y) { return X.first < Y.first; });
  return Out;
}

Status StripeBuffer::takeDirtyRuns(iopoly_array *A, std::vector<std::vector<IoRun>> &Runs,
                                   std::vector<std::string> &Bytes) {
  Lock L(Mu);
  // Fetches and write-backs in flight first: a fetch issued before the
  // sync may carry bytes that another rank is about to change.
  CV.wait(L, [&] {
    for (const Frame &F : Frames)
      if ((F.Owner == A || F.OldOwner == A) && (F.State != FrameState::Ready || F.Flushing))
        return false;
    return true;
  });
  const size_t T = A->Geo.NumDisks;
  Runs.assign(T, {});
  Bytes.assign(T, {});
  // Dirty stripes in the buffer, and those set aside in the private spill
  // since the last sync point (null frame), in stripe order.
  std::vector<std::pair<size_t, Frame *>> Dirty;
  for (Frame &F : Frames)
    if (F.Owner == A && F.Dirty)
      Dirty.emplace_back(F.Stripe, &F);
  for (size_t S : Spill.stripesOf(A))
    Dirty.emplace_back(S, nullptr);
  std::sort(Dirty.begin(), Dirty.end(), [](const auto &X, const auto &Y) { return X.first < Y.first; });
  Counters &C = Env.Counters.C;
  Status First;
  std::vector<char> SpillData;
  for (auto [Stripe, F] : Dirty) {
    size_t D = A->Geo.diskOf(Stripe);
    uint64_t Base = A->Geo.fileOffset(Stripe);
    size_t Written = 0;
    std::vector<IoRun> Changed;
    const char *Src = nullptr;
    if (F) {
      Changed = dirtyRuns(F);
      Src = F->Data;
    } else if (Status E = takeSpilled(A, Stripe, SpillData, Changed)) {
      if (First.ok())
        First = E;
      continue;
    } else {
      Src = SpillData.data();
    }
    for (const IoRun &Run : Changed) {
      Runs[D].push_back({Base + Run.Offset, Run.Len});
      Bytes[D].append(Src + Run.Offset, Run.Len);
      Written += Run.Len;
      C.SyncRuns++;
    }
    if (Written) {
      // One modeled request per stripe; the collective call moves them.
      DiskModel::Request W = Env.Model.submit(D, A->fileId(D), Base, Written, Env.Model.appClock());
      Env.Model.waitUntil(W.Done);
      C.Writebacks++;
      C.BytesWritten += Written;
      C.SyncBytes += Written;
      C.PerDisk[D].Writes++;
      C.PerDisk[D].BytesWritten += Written;
      trace(TraceWriteback | TraceWrite, A, Stripe);
      A->writtenToDisk(Stripe);
    }
    if (!F)
      continue;
    F->Dirty = false;
    freeTwin(F);
    syncView(F);
  }
  // Runs of different stripes of one disk file come in file order too:
  // stripes of disk D sit at ascending slots.
  return First;
}

void StripeBuffer::countSync(iopoly_array *A) {
  Lock L(Mu);
  Env.Counters.C.SyncPoints++;
  trace(TraceSync, A, 0);
}

void StripeBuffer::dropAfterSync(iopoly_array *A, const std::vector<bool> &Changed,
                                 std::vector<std::pair<size_t, char *>> &Pinned) {
  Lock L(Mu);
  Counters &C = Env.Counters.C;
  for (Frame &F : Frames) {
    if (F.Owner != A || F.State != FrameState::Ready || !Changed[A->Geo.diskOf(F.Stripe)])
      continue;
    if (F.Pins) {
      Pinned.emplace_back(F.Stripe, F.Data);
      C.SyncRereads++;
      continue;
    }
    // Clean (the dirty bytes went out in takeDirtyRuns); another rank may
    // have changed the rest, so the copy goes.
    lruUnlink(&F);
    dropView(&F);
    freeTwin(&F);
    A->Table.set(F.Stripe, nullptr);
    F.Owner = nullptr;
    F.Prefetched = false;
    F.Dirty = false;
    F.State = FrameState::Free;
    FreeList.push_back(&F);
    C.SyncDrops++;
  }
  std::sort(Pinned.begin(), Pinned.end());
  C.SyncPoints++;
  trace(TraceSync, A, 0);
}

void StripeBuffer::rereadDone(iopoly_array *A) {
  Lock L(Mu);
  for (Frame &F : Frames) {
    if (F.Owner != A || F.State != FrameState::Ready || !F.Pins)
      continue;
    F.Dirty = false;
    freeTwin(&F);
    if (F.WriteHeld)
      markDirty(&F, /*Whole=*/false); // later writes are measured against what was read
    syncView(&F);
  }
  CV.notify_all();
}

size_t StripeBuffer::pinCount(const iopoly_array *A) {
  std::lock_guard<std::mutex> G(Mu);
  size_t N = 0;
  for (const Frame &F : Frames)
    if (F.Owner && (!A || F.Owner == A))
      N += F.Pins;
  return N;
}

} // namespace iopoly
