//===- ReferenceLRU.h - A deliberately simple LRU buffer model --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The specification of the stripe buffer's replacement in a few lines:
// frames hold (array, stripe) keys; unpinned keys are kept in a list ordered
// by the time they last became unpinned (release) or were prefetched; the
// victim is the front of that list, or a never-used frame first. Counts
// fetches, hits, evictions and write-backs the way the buffer documents.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_REFERENCELRU_H
#define IOPOLY_TEST_REFERENCELRU_H

#include <cstddef>
#include <list>
#include <map>
#include <utility>

namespace iopoly {
namespace test {

class ReferenceLRU {
public:
  using Key = std::pair<unsigned, size_t>; // (array id, stripe)
  explicit ReferenceLRU(size_t Frames) : Frames(Frames) {}

  size_t Fetches = 0, Hits = 0, Evictions = 0, Writebacks = 0;
  size_t PrefetchIssued = 0, PrefetchRedundant = 0, PrefetchDropped = 0;
  std::map<Key, size_t> FetchesOf;

  /// Returns false when every frame is pinned (the attach fails).
  bool attach(Key K, bool Write, bool Overwrite) {
    auto It = Res.find(K);
    if (It != Res.end()) {
      ++Hits;
      if (It->second.Pins++ == 0)
        Lru.remove(K);
      if (Write)
        It->second.Dirty = It->second.WriteHeld = true;
      return true;
    }
    if (!makeRoom())
      return false;
    if (!(Write && Overwrite)) {
      ++Fetches;
      ++FetchesOf[K];
    }
    Entry E;
    E.Pins = 1;
    E.Dirty = E.WriteHeld = Write;
    Res[K] = E;
    return true;
  }

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
    if (!makeRoom()) {
      ++PrefetchDropped;
      return;
    }
    ++PrefetchIssued;
    ++Fetches;
    ++FetchesOf[K];
    Res[K] = Entry();
    Lru.push_back(K);
  }

  void flush() {
    for (auto &KV : Res)
      if (KV.second.Dirty) {
        ++Writebacks;
        KV.second.Dirty = KV.second.WriteHeld;
      }
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
  bool makeRoom() {
    if (Res.size() < Frames)
      return true;
    if (Lru.empty())
      return false;
    Key V = Lru.front();
    Lru.pop_front();
    ++Evictions;
    if (Res[V].Dirty)
      ++Writebacks;
    Res.erase(V);
    return true;
  }
  size_t Frames;
  std::map<Key, Entry> Res;
  std::list<Key> Lru;
};

} // namespace test
} // namespace iopoly

#endif
