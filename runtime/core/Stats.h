//===- Stats.h - Counters of the stripe buffer and the disks ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Counters are plain integers updated under the stripe buffer's lock and
// counted when a request is issued, so that they do not depend on thread
// timing; only io_seconds (wall time inside the backend) is measured by the
// threads doing the I/O.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_STATS_H
#define IOPOLY_RUNTIME_STATS_H

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iopoly {

struct DiskCounters {
  uint64_t Fetches = 0, BytesRead = 0, Writes = 0, BytesWritten = 0;
};

struct Counters {
  uint64_t Attaches = 0, Releases = 0;
  uint64_t Fetches = 0;     ///< stripe reads from disk (demand + prefetch)
  uint64_t Hits = 0;        ///< attaches that found the stripe resident
  uint64_t Evictions = 0;   ///< resident stripes dropped to make room
  uint64_t Writebacks = 0;  ///< successful writes of dirty stripes
  uint64_t BytesRead = 0, BytesWritten = 0;
  uint64_t PrefetchHints = 0, PrefetchIssued = 0, PrefetchRedundant = 0,
           PrefetchDropped = 0, PrefetchUsed = 0, PrefetchWasted = 0;
  uint64_t Overwrites = 0;  ///< attaches with OVERWRITE that skipped a read
  uint64_t ZeroFills = 0;   ///< never-written stripes served as zeros, no I/O
  uint64_t PeakPinned = 0;  ///< most frames attached at the same time
  uint64_t ReadErrors = 0, WriteErrors = 0;
  // Arrays shared by MPI ranks (runtime/core/SharedArrays.cpp).
  uint64_t SyncPoints = 0;   ///< (array, sync point) pairs
  uint64_t SyncRuns = 0;     ///< runs of changed bytes written at sync points
  uint64_t SyncBytes = 0;    ///< their bytes
  uint64_t SyncDrops = 0;    ///< clean copies dropped at sync points
  uint64_t SyncRereads = 0;  ///< attached stripes read again at sync points
  uint64_t TwinPeakBytes = 0; ///< most memory held by twins at once
  std::vector<DiskCounters> PerDisk;
};

class Stats {
public:
  explicit Stats(size_t NumDisks) { C.PerDisk.resize(NumDisks); }
  Counters C; ///< guarded by the stripe buffer lock
  std::atomic<uint64_t> IoNanos{0};

  /// Bitset of stripes of array \p Name fetched at least once.
  std::vector<unsigned long long> *fetchedBits(const std::string &Name,
                                               size_t NumStripes);
  /// Marks a fetch of \p Stripe in \p Bits.
  static void markFetched(std::vector<unsigned long long> &Bits, size_t Stripe) {
    Bits[Stripe / 64] |= 1ULL << (Stripe % 64);
  }
  uint64_t distinctStripes() const;
  void reset();

private:
  std::map<std::string, std::vector<unsigned long long>> Fetched;
};

} // namespace iopoly

#endif
