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
#include "TileReplay.h"
#include "core/Error.h"
#include "lowered/TileWalk.h"
#include "core/Runtime.h"
#include "sched/ParallelLoop.h"
#include "sched/RunSets.h"

#include <mutex>
#include <unordered_set>
#include <vector>

using namespace iopoly;

namespace {
/// The fetches a version of Polly's tiles may lose, by its model, to the
/// room its streams' read-ahead takes.
constexpr double MaxReadAheadLoss = 1.02;

/// The tables whose chosen version is Polly's tiles that can spare room
/// for read-ahead (decided once, with the choice).
std::mutex StreamsLock;
std::unordered_set<const iopoly_tile_table *> StreamTables;

bool streamsReadAhead(const iopoly_tile_table *T) {
  std::lock_guard<std::mutex> L(StreamsLock);
  return StreamTables.count(T) != 0;
}
} // namespace

/// The loops about to run walk units of the chosen version's size (or, in
/// their original order, no known walk): tells the prefetcher.
static void walk(const iopoly_tile_table *T, uint32_t V) {
  // Band versions (and the one for data that fit) walk Polly's tiles, not
  // units of one size: no unit walk
  // to prefetch along, no disk maps for threads.
  bool Tiled = V + 1 < T->num_versions && !isBandVersion(*T, V) && !isInMemoryVersion(*T, V);
  uint64_t Walk = 0;
  if (T->flags & IOPOLY_TABLE_PREFETCH)
    Walk = Tiled ? T->versions[V].unit : isBandVersion(*T, V) && streamsReadAhead(T) ? TileWalkStreamsOnly : 0;
  tileWalkBegin(Walk);
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
  bool Replayed = false;
  std::vector<VersionEstimate> Est = estimateTileVersions(*T, Cfg.StripeSize, Cfg.bufferFrames(), Cost, Replayed);
  uint32_t V = pickTileVersion(*T, Cfg.StripeSize, Cfg.bufferFrames(), Est, Replayed);
  // Its parallel loops run as tasks on threads: units that keep the
  // threads' requests on every disk.
  uint32_t Alone = V;
  if ((T->flags & IOPOLY_TABLE_TASKS) && sched::threadsToUse(Cfg) > 1)
    V = pickTileVersionForTasks(*T, Cfg.StripeSize, Cfg.bufferFrames(), Disks, Est, Replayed, Alone);
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
    if (V != Alone)
      Msg += format("; version %u would run on one thread, version %u's units keep the %u threads' tasks on every "
                    "disk", Alone, V, sched::threadsToUse(Cfg));
    verbose(Msg);
  }
  // Polly's tiles still read rows stripe after stripe: their streams read
  // ahead (2mm at 1/8 of its data: 0.57x the modeled I/O), where the
  // version's model says it can spare the room: with a quarter (else an
  // eighth) of the buffer less, at least 8 stripes, it fetches at most 2%
  // more. Hints push out the stripes the next tiles use again: deriche at
  // 1/2 of its data wrote back twice as much (1.15x the modeled I/O), and
  // at 16 to 19 frames, where tiles need 8 to 12, gemm took 2.0x.
  if ((T->flags & IOPOLY_TABLE_PREFETCH) && isBandVersion(*T, V) && Est[V].Replayed) {
    uint64_t Frames = Cfg.bufferFrames();
    for (uint64_t Room : {Frames / 4, Frames / 8}) {
      if (Room < 8 || Est[V].Need + Room > Frames)
        continue;
      ModelReplay Less = replayModel(*T, V, Cfg.StripeSize, Frames - Room, Cost);
      if (Less.Fits && Less.Fetches <= Est[V].Fetches * MaxReadAheadLoss + 1) {
        {
          std::lock_guard<std::mutex> L(StreamsLock);
          StreamTables.insert(T);
        }
        if (Cfg.Verbose)
          verbose(format("loops at %s: the rows of Polly's tiles read ahead (by their model, %llu stripes less "
                         "buffer cost at most %.0f%% more fetches)",
                         T->where ? T->where : "?", static_cast<unsigned long long>(Room),
                         100 * (MaxReadAheadLoss - 1)));
        break;
      }
    }
  }
  __atomic_store_n(&T->chosen, static_cast<int32_t>(V), __ATOMIC_RELAXED);
  walk(T, V);
  return static_cast<int>(V);
}
