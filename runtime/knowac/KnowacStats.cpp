//===- KnowacStats.cpp - The knowac statistics member ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "KnowacStats.h"
#include "core/OutputFile.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace iopoly {
namespace knowac {

nlohmann::ordered_json statsJson(const Counters &K, const StatsContext &C) {
  auto Get = [](const std::atomic<uint64_t> &A) { return A.load(std::memory_order_relaxed); };
  auto Sec = [&](const std::atomic<uint64_t> &A) { return double(Get(A)) * 1e-9; };
  nlohmann::ordered_json J;
  uint64_t Pred = Get(K.Predictions), Useful = Get(K.UsefulPredictions);
  uint64_t NextP = Get(K.NextPredicted), NextC = Get(K.NextCorrect);
  // The fields named by the issue first (paper 5, Fig. 13), then the rest.
  J["predictions"] = Pred;
  J["hits"] = Get(K.Hits);
  J["partial_hits"] = Get(K.PartialHits);
  J["misses"] = Get(K.Misses);
  J["wasted_bytes"] = C.WastedBytes;
  J["prefetch_lead_seconds"] = Sec(K.LeadNs);
  J["metadata_seconds"] = Sec(K.MetadataNs);
  J["accuracy"] = Pred ? double(Useful) / double(Pred) : 0.0;
  J["useful_predictions"] = Useful;
  J["next_access_predictions"] = NextP;
  J["next_access_correct"] = NextC;
  J["next_access_accuracy"] = NextP ? double(NextC) / double(NextP) : 0.0;
  J["late_hits"] = Get(K.LateHits);
  J["wait_seconds"] = Sec(K.WaitNs);
  J["hit_bytes"] = Get(K.HitBytes);
  J["prefetched_bytes"] = Get(K.PrefetchedBytes);
  J["prefetch_reads"] = Get(K.PrefetchReads);
  J["prefetch_io_seconds"] = Sec(K.HelperIoNs);
  J["cache_full"] = Get(K.CacheFull);
  J["cache_capacity"] = C.CacheCapacity;
  J["cache_evictions"] = C.CacheEvictions;
  J["invalidations"] = Get(K.Invalidations);
  J["stale_drops"] = Get(K.StaleDrops);
  J["racy_drops"] = Get(K.RacyDrops);
  J["changed_drops"] = Get(K.ChangedDrops);
  J["collective_agree_seconds"] = C.AgreeSeconds;
  J["collective_joins"] = Get(K.CollectiveJoins);
  J["collective_fallbacks"] = Get(K.CollectiveFallbacks);
  J["accesses"] = Get(K.Accesses);
  J["unmodeled_calls"] = Get(K.Unmodeled);
  J["inquiries"] = C.Inquiries;
  J["mode"] = C.Mode;
  J["dry_run"] = C.DryRun;
  J["app"] = C.App;
  J["branch"] = C.Branch;
  J["db"] = C.Db;
  J["journal_mode"] = C.Journal;
  J["rank"] = C.Rank;
  J["nprocs"] = C.NProcs;
  J["graph_vertices"] = C.GraphVertices;
  J["graph_edges"] = C.GraphEdges;
  J["merged"] = C.Merged;
  J["new_vertices"] = C.NewVertices;
  J["error"] = C.Error;
  J["error_code"] = C.ErrorCode;
  return J;
}

std::string writeStats(const std::string &Path, const nlohmann::ordered_json &Knowac, int64_t ProcessStartNs) {
  nlohmann::ordered_json Obj = nlohmann::ordered_json::object();
  if (Path == "-") {
    Obj["knowac"] = Knowac;
    std::string S = Obj.dump() + "\n";
    std::fputs(S.c_str(), stderr);
    return "";
  }
  // Merged only into a regular file (a FIFO or a device is written in
  // place and never read back).
  struct stat St;
  if (::stat(Path.c_str(), &St) == 0 && S_ISREG(St.st_mode) &&
      int64_t(St.st_mtim.tv_sec) * 1000000000 + St.st_mtim.tv_nsec >= ProcessStartNs) {
    std::ifstream In(Path);
    std::stringstream SS;
    SS << In.rdbuf();
    nlohmann::ordered_json Old = nlohmann::ordered_json::parse(SS.str(), nullptr, false);
    if (!Old.is_discarded() && Old.is_object())
      Obj = std::move(Old);
  }
  Obj["knowac"] = Knowac;
  Status S = writeWholeFile(Path, Obj.dump() + "\n", "statistics");
  return S ? S.message() : "";
}

} // namespace knowac
} // namespace iopoly
