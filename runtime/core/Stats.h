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

#include "core/SparseTable.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iopoly {

struct DiskCounters {
  uint64_t Fetches = 0, BytesRead = 0, Writes = 0, BytesWritten = 0;
};

/// What one source site (struct iopoly_site) cost an array: the stripes
/// fetched while that site's code was asking for them.
struct SiteFetches {
  const void *Site = nullptr; ///< const iopoly_site *, or null (no site)
  uint64_t Fetches = 0;
};

/// Counters of one array (the per_array entries of the statistics), kept
/// by name so that they outlive the array's handle (iopoly_free).
struct ArrayCounters {
  uint64_t SizeBytes = 0;
  uint64_t Fetches = 0, Hits = 0, Writebacks = 0;
  uint64_t BytesRead = 0, BytesWritten = 0;
  uint64_t FaultedAccesses = 0; ///< page faults of code built without the plugin
  std::string FaultedFrom;      ///< that code, as named at the first fault
  bool ThrashWarned = false;
  static constexpr unsigned MaxSites = 8;
  SiteFetches Sites[MaxSites]; ///< the sites that fetched most (approximate)
  /// Attributes one fetch to \p Site.
  void countSite(const void *Site);
  /// The site that fetched most, or null.
  const void *worstSite() const;
};

struct Counters {
  uint64_t Attaches = 0, Releases = 0;
  uint64_t Fetches = 0;     ///< stripe reads from disk (demand + prefetch)
  uint64_t Hits = 0;        ///< attaches that found the stripe resident
  uint64_t Evictions = 0;   ///< resident stripes dropped to make room
  uint64_t Writebacks = 0;  ///< successful writes of dirty stripes
  uint64_t WriteBehind = 0; ///< of those, written ahead of their eviction (IOPOLY_WRITE_BEHIND)
  uint64_t WriteBehindAgain = 0; ///< stripes written ahead that were changed again before eviction
  uint64_t BytesRead = 0, BytesWritten = 0;
  uint64_t PrefetchHints = 0, PrefetchIssued = 0, PrefetchRedundant = 0,
           PrefetchDropped = 0, PrefetchUsed = 0, PrefetchWasted = 0;
  uint64_t Overwrites = 0;  ///< attaches with OVERWRITE that skipped a read
  uint64_t ZeroFills = 0;   ///< never-written stripes served as zeros, no I/O
  uint64_t PeakPinned = 0;  ///< most frames attached at the same time
  uint64_t ReadErrors = 0, WriteErrors = 0;
  uint64_t FaultedAccesses = 0; ///< page faults served for code built without the plugin
  // Arrays shared by MPI ranks (runtime/core/SharedArrays.cpp).
  uint64_t SyncPoints = 0;   ///< (array, sync point) pairs
  uint64_t SyncRuns = 0;     ///< runs of changed bytes written at sync points
  uint64_t SyncBytes = 0;    ///< their bytes
  uint64_t SyncDrops = 0;    ///< clean copies dropped at sync points
  uint64_t SyncRereads = 0;  ///< attached stripes read again at sync points
  uint64_t TwinPeakBytes = 0; ///< most memory held by twins at once
  uint64_t SharedSpills = 0;  ///< dirty stripes set aside privately (SpillStore.h)
  uint64_t SpillReads = 0;    ///< stripes read back from the private spill
  uint64_t SpillBytes = 0;    ///< bytes both moved
  std::vector<DiskCounters> PerDisk;
};

class Stats {
public:
  explicit Stats(size_t NumDisks) { C.PerDisk.resize(NumDisks); }
  Counters C; ///< guarded by the stripe buffer lock
  std::atomic<uint64_t> IoNanos{0};

  /// Set of stripes of array \p Name fetched at least once (sparse: costs
  /// memory for what was fetched, not for the array's extent).
  SparseBits *fetchedBits(const std::string &Name, size_t NumStripes);
  /// Marks a fetch of \p Stripe in \p Bits.
  static void markFetched(SparseBits &Bits, size_t Stripe) { Bits.setBit(Stripe); }
  uint64_t distinctStripes() const;
  /// Distinct stripes of array \p Name fetched so far.
  uint64_t distinctStripes(const std::string &Name) const;
  /// The counters of array \p Name (created on first use; never moves).
  ArrayCounters *arrayCounters(const std::string &Name);
  const std::map<std::string, ArrayCounters> &perArray() const { return PerArray; }
  void reset();

private:
  std::map<std::string, SparseBits> Fetched;
  std::map<std::string, ArrayCounters> PerArray;
};

} // namespace iopoly

#endif
