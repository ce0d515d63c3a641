//===- KnowacStats.h - Counters and the statistics object -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Counters shared by the main thread and the helper thread (relaxed
// atomics: they are only summed), rendered as the `knowac` member of the
// IOPOLY_STATS object (paper 5, Fig. 13: metadata time). The file is
// written at exit; when the iopoly runtime wrote its own object to the same
// file during this process, the member is added to that object instead of
// replacing it.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_KNOWACSTATS_H
#define IOPOLY_KNOWAC_KNOWACSTATS_H

#include <atomic>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace iopoly {
namespace knowac {

struct Counters {
  // Prefetching (helper thread).
  std::atomic<uint64_t> Predictions{0};     ///< predicted reads acted on (read ahead, or dry-run)
  std::atomic<uint64_t> UsefulPredictions{0}; ///< of those, read ahead and then served at least once
  std::atomic<uint64_t> PrefetchedBytes{0}; ///< bytes read ahead and kept
  std::atomic<uint64_t> PrefetchReads{0};   ///< pread calls of the helper
  std::atomic<uint64_t> CacheFull{0};       ///< predictions skipped for want of cache room
  std::atomic<uint64_t> RacyDrops{0};       ///< reads dropped: the file was modified within the last second
  std::atomic<uint64_t> ChangedDrops{0};    ///< reads dropped: the file changed or was written during the read
  std::atomic<uint64_t> NextPredicted{0};   ///< accesses the matcher had a prediction for
  std::atomic<uint64_t> NextCorrect{0};     ///< ... and the prediction was that access
  std::atomic<uint64_t> HelperIoNs{0};      ///< time the helper spent reading
  // Serving (main thread).
  std::atomic<uint64_t> Hits{0};            ///< gets served entirely from the cache
  std::atomic<uint64_t> PartialHits{0};     ///< gets overlapping cached data but not covered: read from the file
  std::atomic<uint64_t> Misses{0};          ///< gets with nothing cached: read from the file
  std::atomic<uint64_t> LateHits{0};        ///< hits that waited for the helper to finish the read
  std::atomic<uint64_t> LeadNs{0};          ///< summed time hit data waited in the cache before use
  std::atomic<uint64_t> WaitNs{0};          ///< summed time gets waited for reads in flight
  std::atomic<uint64_t> StaleDrops{0};      ///< cached regions dropped because the file changed since
  std::atomic<uint64_t> Invalidations{0};   ///< cached regions dropped by this process's writes
  std::atomic<uint64_t> CollectiveJoins{0};     ///< collective gets served here while another rank read (empty request)
  std::atomic<uint64_t> CollectiveFallbacks{0}; ///< collective gets of scalars read from the file because another rank missed
  std::atomic<uint64_t> Accesses{0};        ///< modeled gets and puts recorded
  std::atomic<uint64_t> Unmodeled{0};       ///< calls forwarded without learning (varn, vard, mput, ...)
  std::atomic<uint64_t> HitBytes{0};        ///< bytes served from the cache
  std::atomic<uint64_t> MetadataNs{0};      ///< graph load/match/predict/merge and bookkeeping, both threads
};

/// Adds \p Ns to a counter.
inline void addNs(std::atomic<uint64_t> &C, uint64_t Ns) { C.fetch_add(Ns, std::memory_order_relaxed); }

/// What the statistics object says besides the counters.
struct StatsContext {
  std::string Mode, App, Branch, Db, Journal, Error, ErrorCode;
  bool DryRun = false;
  int Rank = 0, NProcs = 1;
  uint64_t CacheCapacity = 0, WastedBytes = 0, CacheEvictions = 0;
  uint64_t GraphVertices = 0, GraphEdges = 0, NewVertices = 0;
  bool Merged = false;
  double AgreeSeconds = 0;
  uint64_t Inquiries = 0;
};

/// The `knowac` member.
nlohmann::ordered_json statsJson(const Counters &K, const StatsContext &C);

/// Writes {"knowac": ...} to \p Path ('-' = stderr). If the file was
/// written after \p ProcessStartNs (wall clock) and holds a JSON object
/// (the runtime's statistics of this process), the member is added to it.
/// Written by the rules of core/OutputFile.h (links followed, replaced
/// atomically). Returns "" or an error message naming the file.
std::string writeStats(const std::string &Path, const nlohmann::ordered_json &Knowac, int64_t ProcessStartNs);

} // namespace knowac
} // namespace iopoly

#endif
