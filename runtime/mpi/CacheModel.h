//===- CacheModel.h - The caches of the storage hierarchy --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One definition of what a cache node of the hierarchy does, used by the
// real servers (iopoly-cacheserver) and by the simulator (iopoly-cachesim),
// so that both count the same hits and misses for the same sequence of
// requests. Paper 2, section 5.1: the unit is one data chunk (a stripe),
// every cache is LRU. Reads allocate (a miss brings the stripe in, evicting
// the least recently used one); writes go through to the disk and update
// (and refresh) a cached copy without allocating one. At the end of an
// epoch (a sync point of an array) a node drops its copy of every stripe
// that was written through another node of its level during the epoch: it
// may hold old bytes there (levelDrops).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_CACHEMODEL_H
#define IOPOLY_RUNTIME_MPI_CACHEMODEL_H

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace iopoly {

/// A stripe of a disk file: fileKey() of the file's path and the stripe
/// number in the array.
struct BlockKey {
  uint64_t File = 0;
  uint64_t Stripe = 0;
  bool operator==(const BlockKey &O) const { return File == O.File && Stripe == O.Stripe; }
  bool operator<(const BlockKey &O) const { return File != O.File ? File < O.File : Stripe < O.Stripe; }
};
struct BlockKeyHash {
  size_t operator()(const BlockKey &K) const { return static_cast<size_t>(K.File * 0x9E3779B97F4A7C15ULL ^ K.Stripe); }
};

/// LRU set of blocks. hit/insert/touch/erase are O(1).
class LruCache {
public:
  explicit LruCache(uint64_t Blocks) : Capacity(Blocks ? Blocks : 1) {}
  /// A lookup: true (and most recent) when present.
  bool hit(const BlockKey &K);
  /// Makes \p K the most recent block, evicting the least recent one when
  /// full; returns whether one was evicted, and which in \p Evicted.
  bool insert(const BlockKey &K, BlockKey *Evicted = nullptr);
  bool contains(const BlockKey &K) const { return Map.count(K) != 0; }
  bool erase(const BlockKey &K);
  size_t size() const { return Map.size(); }
  uint64_t capacity() const { return Capacity; }

private:
  uint64_t Capacity;
  std::list<BlockKey> Order; ///< front = most recent
  std::unordered_map<BlockKey, std::list<BlockKey>::iterator, BlockKeyHash> Map;
};

/// Counters of one cache node (or of one client at one level).
struct LevelCounters {
  uint64_t Reads = 0, Hits = 0, Misses = 0, BytesRead = 0;
  uint64_t Writes = 0, BytesWritten = 0;
  void add(const LevelCounters &O) {
    Reads += O.Reads, Hits += O.Hits, Misses += O.Misses, BytesRead += O.BytesRead;
    Writes += O.Writes, BytesWritten += O.BytesWritten;
  }
};

/// One cache node of the hierarchy.
class CacheNode {
public:
  explicit CacheNode(uint64_t Blocks) : Cache(Blocks) {}
  /// A read of \p Bytes: true on a hit; a miss brings the block in.
  /// \p Evicted, if given, receives the block that had to go.
  bool read(const BlockKey &K, size_t Bytes, bool *DidEvict = nullptr, BlockKey *Evicted = nullptr);
  /// A write passing through: a cached copy is updated and refreshed.
  /// Returns whether the copy was there.
  bool write(const BlockKey &K, size_t Bytes);
  /// Writes of the files \p Files that passed through here this epoch.
  std::vector<std::pair<BlockKey, uint32_t>> written(const std::unordered_set<uint64_t> &Files) const;
  /// Drops \p Keys (if cached) and forgets the epoch's writes of \p Files.
  /// Returns the keys that were cached.
  std::vector<BlockKey> endEpoch(const std::vector<BlockKey> &Keys, const std::unordered_set<uint64_t> &Files);
  const LevelCounters &counters() const { return C; }
  const LruCache &cache() const { return Cache; }

private:
  LruCache Cache;
  LevelCounters C;
  std::unordered_map<BlockKey, uint32_t, BlockKeyHash> Written;
};

/// End of an epoch for one level: given each node's writes during the
/// epoch, the blocks each node must drop: those written through some other
/// node of the level (a node keeps a block only if every write of it went
/// through that node).
std::vector<std::vector<BlockKey>> levelDrops(const std::vector<std::vector<std::pair<BlockKey, uint32_t>>> &Written);

/// Modeled network: every hop between two levels costs a latency plus the
/// bytes it carries over the bandwidth.
struct NetModel {
  double Latency = 50e-6;
  double Bandwidth = 1e9;
  double hop(size_t Bytes) const { return Latency + static_cast<double>(Bytes) / Bandwidth; }
};

} // namespace iopoly

#endif
