//===- TileVersions.cpp - The run-time choice of a tiled version -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// __iopoly_pick_version (include/iopoly/abi.h): restructured loops are
// compiled in a few versions whose tiles need more or fewer stripes; the
// rule of common/TileChoice.h, applied to this run's stripe size and
// buffer capacity, picks one. The answer is cached in the table: one load
// and one compare on every later call.
//
//===----------------------------------------------------------------------===//
#include "iopoly/abi.h"

#include "TileChoice.h"
#include "core/Error.h"
#include "lowered/TileWalk.h"
#include "core/Runtime.h"
#include "sched/ParallelLoop.h"

#include <vector>

using namespace iopoly;

/// The loops about to run walk units of the chosen version's size (or, in
/// their original order, no known walk): tells the prefetcher.
static void walk(const iopoly_tile_table *T, uint32_t V) {
  // Band versions (and the one for data that fit) walk Polly's tiles, not
  // units of one size: no unit walk
  // to prefetch along, no disk maps for threads.
  bool Tiled = V + 1 < T->num_versions && !isBandVersion(*T, V) && !isInMemoryVersion(*T, V);
  tileWalkBegin(Tiled && T->prefetch ? T->versions[V].unit : 0);
  // Parallel loops of this region (threads=on): the disk maps of its tiles.
  uint64_t Need = 0;
  if (Tiled)
    if (Runtime *RT = Runtime::existing())
      iopoly_tile_cost(T, V, RT->config().StripeSize, RT->config().bufferFrames(), &Need);
  sched::noteTiledRegion(Tiled ? T->versions[V].unit : 0, Need);
}

extern "C" int __iopoly_pick_version(iopoly_tile_table *T) {
  int32_t C = __atomic_load_n(&T->chosen, __ATOMIC_RELAXED);
  if (C >= 0) {
    walk(T, static_cast<uint32_t>(C));
    return C;
  }
  Runtime *RT = Runtime::existing();
  if (!RT)
    if (Status S = Runtime::get(RT))
      fatal(S.message());
  if (T->abi != IOPOLY_TILE_ABI || !T->num_versions)
    fatal(format("restructured loops at %s were compiled for another iopoly version (tile table ABI %u, this "
                 "runtime %u): rebuild the program",
                 T->where ? T->where : "?", T->abi, IOPOLY_TILE_ABI));
  const Config &Cfg = RT->config();
  // Fetches priced as the disk model prices them (IOPOLY_DISK_MODEL, hdd
  // by default); with the model off (none), every fetch costs the same.
  const DiskModelParams &P = Cfg.Model;
  uint32_t Disks = static_cast<uint32_t>(Cfg.DiskDirs.empty() ? 1 : Cfg.DiskDirs.size());
  FetchCost Cost;
  Cost.Disks = Disks;
  if (P.enabled())
    Cost = fetchCost(P.LatencySec, P.SeqLatencySec, P.BytesPerSec, Cfg.StripeSize, Disks);
  std::vector<VersionEstimate> Est;
  uint32_t V = chooseTileVersion(*T, Cfg.StripeSize, Cfg.bufferFrames(), &Est, Cost);
  if (Cfg.Verbose) {
    std::string Msg = format("loops at %s: version %u of %u chosen for %zu-byte stripes and a buffer of %zu stripes "
                             "(per version: stripes a tile needs/estimated fetches/their cost%s):",
                             T->where ? T->where : "?", V, T->num_versions, Cfg.StripeSize, Cfg.bufferFrames(),
                             P.enabled() ? " in modeled seconds" : "");
    for (uint32_t K = 0; K < T->num_versions; ++K)
      Msg += format(" %u: %llu/%s/%s%s%s%s", K, static_cast<unsigned long long>(Est[K].Need),
                    Est[K].Replayed ? format("%.0f", Est[K].Fetches).c_str() : "-",
                    Est[K].Replayed ? format("%.2f", Est[K].Cost).c_str() : "-",
                    isBandVersion(*T, K) ? format(" (tiles of %llu%s)", static_cast<unsigned long long>(T->versions[K].unit),
                                                  T->versions[K].flags & IOPOLY_VERSION_ROWS ? ", rows innermost" : "")
                                               .c_str()
                                         : "",
                    K + 1 == T->num_versions ? " (original order)"
                    : isInMemoryVersion(*T, K) ? " (Polly's schedule as in mode=clo, for data that fit)"
                    : (Est[K].Fits ? "" : " (does not fit)"),
                    Est[K].Outside > MaxModelOutside ? format(" (%.0f%% of its model off the arrays)", 100 * Est[K].Outside).c_str() : "");
    verbose(Msg);
  }
  __atomic_store_n(&T->chosen, static_cast<int32_t>(V), __ATOMIC_RELAXED);
  walk(T, V);
  return static_cast<int>(V);
}
