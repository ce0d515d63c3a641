//===- Cache.cpp - Prefetch cache with invalidation ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Cache.h"

#include <sys/stat.h>

namespace iopoly {
namespace knowac {

bool statFile(const std::string &Path, FileSig &Out) {
  struct stat St;
  if (::stat(Path.c_str(), &St) != 0)
    return false;
  Out.Id = {uint64_t(St.st_dev), uint64_t(St.st_ino)};
  Out.Size = int64_t(St.st_size);
  Out.MtimeNs = int64_t(St.st_mtim.tv_sec) * 1000000000 + St.st_mtim.tv_nsec;
  Out.CtimeNs = int64_t(St.st_ctim.tv_sec) * 1000000000 + St.st_ctim.tv_nsec;
  return true;
}

namespace {
/// Buffers kept for reuse, at most (beyond that they are freed).
constexpr size_t PoolLimit = size_t(64) << 20;
} // namespace

void Cache::dropLocked(std::list<std::shared_ptr<Entry>>::iterator It) {
  Entry &E = **It;
  if (E.Served == 0) // read (or being read) ahead and never used
    Wasted += E.Bytes;
  E.St = Entry::State::Dropped;
  Used -= E.Bytes;
  // Only the cache holds it (references are taken under this lock): no
  // thread reads or fills the buffer any more, so it can serve the next read.
  if (It->use_count() == 1 && E.Data.capacity() && PoolBytes + E.Data.capacity() <= PoolLimit) {
    PoolBytes += E.Data.capacity();
    Pool.push_back(std::move(E.Data));
  }
  Entries.erase(It);
  Filled.notify_all();
}

std::shared_ptr<Entry> Cache::startFill(FileId File, int Var, const Box &B, unsigned ElemSize, size_t Bytes,
                                        const std::function<bool(const Entry &)> &MayDrop) {
  std::lock_guard<std::mutex> L(Mu);
  if (Bytes > Capacity)
    return nullptr;
  // Entries already served and no longer predicted did their job: they go
  // now, and their buffers take the new reads (no fresh pages to fault in).
  if (MayDrop)
    for (auto It = Entries.begin(); It != Entries.end();) {
      Entry &E = **It;
      if (E.St == Entry::State::Ready && E.Served > 0 && MayDrop(E))
        dropLocked(It++);
      else
        ++It;
    }
  // For room: served entries first, then those no longer predicted.
  for (int Pass = 0; Pass < 2 && Used + Bytes > Capacity; ++Pass)
    for (auto It = Entries.begin(); It != Entries.end() && Used + Bytes > Capacity;) {
      Entry &E = **It;
      bool Drop = E.St == Entry::State::Ready &&
                  (Pass == 0 ? E.Served > 0 : (E.Served == 0 && MayDrop && MayDrop(E)));
      if (Drop) {
        ++Evicted;
        dropLocked(It++);
      } else {
        ++It;
      }
    }
  if (Used + Bytes > Capacity)
    return nullptr;
  auto E = std::make_shared<Entry>();
  E->File = File;
  E->Var = Var;
  E->B = B;
  E->ElemSize = ElemSize;
  E->Bytes = Bytes;
  // The smallest pooled buffer that is large enough, else a new one.
  size_t Best = Pool.size();
  for (size_t I = 0; I < Pool.size(); ++I)
    if (Pool[I].capacity() >= Bytes && (Best == Pool.size() || Pool[I].capacity() < Pool[Best].capacity()))
      Best = I;
  if (Best < Pool.size()) {
    PoolBytes -= Pool[Best].capacity();
    E->Data = std::move(Pool[Best]);
    Pool.erase(Pool.begin() + long(Best));
  }
  E->Data.resize(Bytes);
  Used += Bytes;
  Entries.push_back(E);
  return E;
}

bool Cache::finishFill(const std::shared_ptr<Entry> &E, bool Ok, const FileSig &Sig) {
  std::lock_guard<std::mutex> L(Mu);
  if (E->St != Entry::State::InFlight) // invalidated while being read
    return false;
  if (!Ok) {
    for (auto It = Entries.begin(); It != Entries.end(); ++It)
      if (It->get() == E.get()) {
        dropLocked(It);
        break;
      }
    return false;
  }
  E->Sig = Sig;
  E->St = Entry::State::Ready;
  E->ReadyAt = Clock::now();
  Filled.notify_all();
  return true;
}

void Cache::abandon(const std::shared_ptr<Entry> &E, uint64_t BytesRead) {
  std::lock_guard<std::mutex> L(Mu);
  for (auto It = Entries.begin(); It != Entries.end(); ++It)
    if (It->get() == E.get()) {
      Wasted += BytesRead;
      Wasted -= E->Bytes; // dropLocked counts the whole entry
      dropLocked(It);
      return;
    }
}

Cache::Found Cache::find(FileId File, int Var, const Box &Want, std::shared_ptr<Entry> &Out, double *Waited) {
  std::unique_lock<std::mutex> L(Mu);
  Out.reset();
  if (Waited)
    *Waited = 0;
  Clock::time_point T0;
  bool Waiting = false;
  while (true) {
    std::shared_ptr<Entry> InFlight;
    bool Overlap = false;
    for (const auto &E : Entries) {
      if (E->File != File || E->Var != Var)
        continue;
      if (E->B.contains(Want)) {
        if (E->St == Entry::State::Ready) {
          Out = E;
          if (Waited && Waiting)
            *Waited = std::chrono::duration<double>(Clock::now() - T0).count();
          return Found::Hit;
        }
        if (E->St == Entry::State::InFlight)
          InFlight = E;
      } else if (E->B.overlaps(Want)) {
        Overlap = true;
      }
    }
    if (!InFlight)
      return Overlap ? Found::Partial : Found::Miss;
    // Being read right now: the rest of that read costs less than a new one.
    if (!Waiting)
      T0 = Clock::now();
    Waiting = true;
    if (WaitHook) { // outside our lock: the hook takes the helper's
      L.unlock();
      WaitHook(true);
      L.lock();
    }
    Filled.wait(L, [&] { return InFlight->St != Entry::State::InFlight; });
    if (WaitHook) {
      L.unlock();
      WaitHook(false);
      L.lock();
    }
  }
}

bool Cache::served(const std::shared_ptr<Entry> &E) {
  std::lock_guard<std::mutex> L(Mu);
  return ++E->Served == 1;
}

bool Cache::covers(FileId File, int Var, const Box &B) const {
  std::lock_guard<std::mutex> L(Mu);
  for (const auto &E : Entries)
    if (E->File == File && E->Var == Var && E->St != Entry::State::Dropped && E->B.contains(B))
      return true;
  return false;
}

size_t Cache::invalidate(FileId File, int Var, const Box *B) {
  std::lock_guard<std::mutex> L(Mu);
  size_t N = 0;
  for (auto It = Entries.begin(); It != Entries.end();) {
    Entry &E = **It;
    if (E.File == File && (Var < 0 || E.Var == Var) && (!B || E.B.overlaps(*B))) {
      ++N;
      dropLocked(It++);
    } else {
      ++It;
    }
  }
  return N;
}

void Cache::drop(const std::shared_ptr<Entry> &E) {
  std::lock_guard<std::mutex> L(Mu);
  for (auto It = Entries.begin(); It != Entries.end(); ++It)
    if (It->get() == E.get()) {
      dropLocked(It);
      return;
    }
}

void Cache::clear() {
  std::lock_guard<std::mutex> L(Mu);
  while (!Entries.empty())
    dropLocked(Entries.begin());
}

size_t Cache::used() const {
  std::lock_guard<std::mutex> L(Mu);
  return Used;
}

size_t Cache::entries() const {
  std::lock_guard<std::mutex> L(Mu);
  return Entries.size();
}

uint64_t Cache::wastedBytes() const {
  std::lock_guard<std::mutex> L(Mu);
  return Wasted;
}

uint64_t Cache::evictions() const {
  std::lock_guard<std::mutex> L(Mu);
  return Evicted;
}

} // namespace knowac
} // namespace iopoly
