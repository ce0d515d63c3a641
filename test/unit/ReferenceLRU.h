//===- ReferenceLRU.h - A deliberately simple LRU buffer model --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The specification of the stripe buffer's replacement in a few lines:
// frames hold (array, stripe) keys; unpinned keys are kept in a list ordered
// by the time they last became unpinned (release) or were prefetched; the
// victim is the front of that list, or a never-used frame first. Counts
// fetches, hits, evictions and write-backs the way the buffer documents.
// With injected failures: a failed write-back of the victim keeps it
// resident and dirty at the most-recent end and the new stripe is not
// brought in; a failed read leaves the frame free; neither counts as a
// fetch, an eviction or a write-back.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_REFERENCELRU_H
#define IOPOLY_TEST_REFERENCELRU_H

#include <algorithm>
#include <cstddef>
#include <vector>
#include <list>
#include <map>
#include <utility>

namespace iopoly {
namespace test {

class ReferenceLRU {
public:
  using Key = std::pair<unsigned, size_t>; // (array id, stripe)
  /// \p Disks places stripes (stripe % Disks) for the flush order.
  explicit ReferenceLRU(size_t Frames, size_t Disks = 1) : Frames(Frames), Disks(Disks) {}

  size_t Fetches = 0, Hits = 0, Evictions = 0, Writebacks = 0;
  size_t PrefetchIssued = 0, PrefetchRedundant = 0, PrefetchDropped = 0;
  size_t ReadErrors = 0, WriteErrors = 0;
  std::map<Key, size_t> FetchesOf;

  /// The next read / write-back fails (consumed by the operation that
  /// meets it; the caller clears what was not consumed).
  bool FailRead = false, FailWrite = false;

  enum Outcome { Done, Full, IoFailed };

  /// Full when every frame is pinned; IoFailed when the write-back of the
  /// victim or the read fails (nothing is attached then).
  Outcome attachOutcome(Key K, bool Write, bool Overwrite) {
    auto It = Res.find(K);
    if (It != Res.end()) {
      ++Hits;
      if (It->second.Pins++ == 0)
        Lru.remove(K);
      if (Write)
        It->second.Dirty = It->second.WriteHeld = true;
      return Done;
    }
    Room R = makeRoom();
    if (R == NoRoom)
      return Full;
    if (R == WriteFailed)
      return IoFailed;
    if (!(Write && Overwrite)) {
      if (consume(FailRead)) {
        ++ReadErrors;
        return IoFailed;
      }
      ++Fetches;
      ++FetchesOf[K];
    }
    Entry E;
    E.Pins = 1;
    E.Dirty = E.WriteHeld = Write;
    Res[K] = E;
    return Done;
  }

  /// Returns false when every frame is pinned (the attach fails).
  bool attach(Key K, bool Write, bool Overwrite) { return attachOutcome(K, Write, Overwrite) == Done; }

  void release(Key K) {
    Entry &E = Res.at(K);
    if (--E.Pins == 0) {
      E.WriteHeld = false;
      Lru.push_back(K);
    }
  }

  void prefetch(Key K) {
    if (Res.count(K)) {
      ++PrefetchRedundant;
      return;
    }
    Room R = makeRoom();
    if (R == NoRoom) {
      ++PrefetchDropped;
      return;
    }
    ++PrefetchIssued;
    if (R == WriteFailed)
      return;
    if (consume(FailRead)) {
      ++ReadErrors;
      return;
    }
    ++Fetches;
    ++FetchesOf[K];
    Res[K] = Entry();
    Lru.push_back(K);
  }

  /// Writes back in (array, disk, stripe) order, as the buffer does; a
  /// failed write leaves its stripe dirty.
  void flush() {
    std::vector<Key> Order;
    for (auto &KV : Res)
      if (KV.second.Dirty)
        Order.push_back(KV.first);
    std::sort(Order.begin(), Order.end(), [&](const Key &X, const Key &Y) {
      if (X.first != Y.first)
        return X.first < Y.first;
      size_t DX = X.second % Disks, DY = Y.second % Disks;
      return DX != DY ? DX < DY : X.second < Y.second;
    });
    for (const Key &K : Order) {
      Entry &E = Res[K];
      if (consume(FailWrite)) {
        ++WriteErrors;
        continue;
      }
      ++Writebacks;
      E.Dirty = E.WriteHeld;
    }
  }

  /// Frames with at least one pin.
  size_t pinnedFrames() const {
    size_t N = 0;
    for (const auto &KV : Res)
      N += KV.second.Pins > 0;
    return N;
  }
  size_t pins() const {
    size_t N = 0;
    for (const auto &KV : Res)
      N += KV.second.Pins;
    return N;
  }
  bool resident(Key K) const { return Res.count(K) != 0; }
  bool pinned(Key K) const {
    auto It = Res.find(K);
    return It != Res.end() && It->second.Pins > 0;
  }

private:
  struct Entry {
    unsigned Pins = 0;
    bool Dirty = false, WriteHeld = false;
  };
  enum Room { Made, NoRoom, WriteFailed };
  static bool consume(bool &Flag) {
    bool Was = Flag;
    Flag = false;
    return Was;
  }
  Room makeRoom() {
    if (Res.size() < Frames)
      return Made;
    if (Lru.empty())
      return NoRoom;
    Key V = Lru.front();
    Lru.pop_front();
    if (Res[V].Dirty) {
      if (consume(FailWrite)) {
        // The victim keeps the only copy: it stays, most recent.
        ++WriteErrors;
        Lru.push_back(V);
        return WriteFailed;
      }
      ++Writebacks;
    }
    ++Evictions;
    Res.erase(V);
    return Made;
  }
  size_t Frames, Disks;
  std::map<Key, Entry> Res;
  std::list<Key> Lru;
};

} // namespace test
} // namespace iopoly

#endif
