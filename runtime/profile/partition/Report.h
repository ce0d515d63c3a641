//===- Report.h - What a partition plan does, in numbers ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Chunks, bytes and accesses per class and per rank, and the traffic the
// plan should move off the central storage: for the profiled accesses,
// bytes served from node-local files against bytes still going to the
// shared file (central chunks, staging of data read before it is written,
// and the gather that makes the shared file whole at close).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_PARTITION_REPORT_H
#define IOPOLY_PROFILE_PARTITION_REPORT_H

#include "partition/Plan.h"

#include <string>
#include <vector>

namespace iopoly::prof {

struct ClassStats {
  uint64_t Chunks = 0, Bytes = 0, Accesses = 0, AccessBytes = 0;
};

struct RankStats {
  uint64_t PartitionChunks = 0, PartitionBytes = 0; ///< its node-local file
  uint64_t LocalBytes = 0;   ///< profiled access bytes it would serve locally
  uint64_t CentralBytes = 0; ///< profiled access bytes still on the shared file
};

struct VariantStats {
  uint32_t NRanks = 0;
  ClassStats ByClass[4];
  std::vector<RankStats> Ranks;
  uint64_t AccessBytes = 0;  ///< all profiled bytes (= central traffic without a plan)
  uint64_t LocalBytes = 0;   ///< served by node-local files
  uint64_t CentralBytes = 0; ///< accesses to central chunks
  uint64_t StageBytes = 0;   ///< read from the shared file before first use
  uint64_t PushBytes = 0;    ///< broadcast updates sent to readers
  uint64_t GatherBytes = 0;  ///< copied back to the shared file at close
  uint64_t expectedCentral() const { return CentralBytes + StageBytes + GatherBytes; }
};

VariantStats variantStats(const FilePlan &V);
/// The report object stored in plan.json under "report".
std::string reportJson(const Plan &P);
/// The report as text (what iopoly-partition prints).
std::string reportText(const Plan &P);

} // namespace iopoly::prof

#endif
