//===- TileChoice.cpp - Which version of restructured loops runs ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "TileChoice.h"
#include "TileReplay.h"

#include <algorithm>
#include <limits>
#include <map>

namespace iopoly {

namespace {

/// Stripes of all the data the table's loops touch: from the original
/// order's terms, or, where it has none, from the band terms. Zero when
/// unknown.
uint64_t allStripes(const iopoly_tile_table &T, uint64_t Stripe) {
  std::map<uint32_t, uint64_t> Bytes;
  const iopoly_tile_version &Orig = T.versions[T.num_versions - 1];
  for (uint32_t K = 0; K < Orig.count; ++K) {
    const iopoly_tile_term &Term = T.terms[Orig.first + K];
    Bytes.emplace(Term.array & 255, Term.total);
  }
  if (Bytes.empty() && hasModel(T, T.num_versions - 1))
    for (uint32_t K = 0; K < Orig.model_count; ++K) {
      const iopoly_band_term &Term = T.band_terms[Orig.model_first + K];
      if (!Term.bytes)
        return 0;
      Bytes.emplace(Term.array, Term.bytes);
    }
  uint64_t All = 0;
  for (auto &[A, B] : Bytes)
    All += iopoly_tile_stripes(B, Stripe);
  return All;
}

} // namespace

std::vector<VersionEstimate> estimateTileVersions(const iopoly_tile_table &T, uint64_t Stripe, uint64_t Frames,
                                                  const FetchCost &Cost, bool &Replay, ReplayWalks *Walks,
                                                  const std::vector<bool> *Only) {
  std::vector<VersionEstimate> Est(T.num_versions);
  // Replayed footprint models where every version has one (one cost for
  // every kind of version); otherwise the data-tiled versions' formula.
  // The version for data that fit is compared by cost only where it has
  // a model; without one it runs only when all the data fit.
  Replay = true;
  for (uint32_t V = 0; V < T.num_versions; ++V)
    Replay &= hasModel(T, V) || isInMemoryVersion(T, V);
  for (uint32_t V = 0; V < T.num_versions; ++V) {
    VersionEstimate &E = Est[V];
    if (Only && !(*Only)[V])
      continue;
    if (isInMemoryVersion(T, V) && (!Replay || !hasModel(T, V))) {
      continue;
    } else if (Replay && V + 1 < T.num_versions && !isInMemoryVersion(T, V) &&
               !modelFits(T, V, Stripe, Frames, E.Need)) {
      // Tiles that do not fit are never chosen (pickTileVersion), and their
      // replay was most of the compiler's grid of plausible runs at small
      // buffers: not replayed, no fetches estimated.
      E.Fits = false;
      E.Replayed = false;
    } else if (Replay) {
      ModelReplay R = replayModel(T, V, Stripe, Frames, Cost, ReplayBudget, Walks);
      E.Need = R.Need;
      E.Fetches = R.Fetches;
      E.Cost = R.Cost;
      E.Requests = R.Requests;
      E.Fits = R.Fits;
      E.Outside = R.Outside;
    } else if (!isBandVersion(T, V)) {
      E.Cost = E.Fetches = E.Requests = iopoly_tile_cost(&T, V, Stripe, Frames, &E.Need);
      E.Fits = E.Need * 4 <= Frames * 3;
    }
  }
  return Est;
}

uint32_t chooseTileVersion(const iopoly_tile_table &T, uint64_t Stripe, uint64_t Frames,
                           std::vector<VersionEstimate> *Out, const FetchCost &Cost) {
  bool Replay;
  std::vector<VersionEstimate> Est = estimateTileVersions(T, Stripe, Frames, Cost, Replay);
  uint32_t Best = pickTileVersion(T, Stripe, Frames, Est, Replay);
  if (Out)
    *Out = std::move(Est);
  return Best;
}

uint32_t pickTileVersion(const iopoly_tile_table &T, uint64_t Stripe, uint64_t Frames,
                         const std::vector<VersionEstimate> &Est, bool Replay, const std::vector<bool> *Among) {
  uint32_t Orig = T.num_versions - 1, Best = Orig;
  auto excluded = [&](uint32_t V) { return Among && !(*Among)[V]; };
  if (Replay) {
    // Among the versions whose tiles fit (the replay cannot see how a tile
    // that does not fit thrashes), whose model is on the arrays and which
    // save enough of the original order's cost (MaxCostAgainstOriginal):
    // the one with the fewest requests of those near the cheapest
    // (MaxCostForFewerRequests); the original order if there is none.
    auto candidate = [&](uint32_t V) {
      return !excluded(V) && Est[V].Fits && Est[V].Outside <= MaxModelOutside &&
             Est[V].Cost < MaxCostAgainstOriginal * Est[Orig].Cost;
    };
    double Cheapest = std::numeric_limits<double>::infinity();
    for (uint32_t V = 0; V < Orig; ++V)
      if (candidate(V))
        Cheapest = std::min(Cheapest, Est[V].Cost);
    for (uint32_t V = 0; V < Orig; ++V)
      if (candidate(V) && Est[V].Cost <= MaxCostForFewerRequests * Cheapest &&
          (Best == Orig || Est[V].Requests < Est[Best].Requests ||
           (Est[V].Requests == Est[Best].Requests && Est[V].Cost < Est[Best].Cost)))
        Best = V;
  } else {
    double BestCost = 0;
    for (uint32_t V = 0; V < Orig; ++V) {
      if (excluded(V) || !Est[V].Fits || isBandVersion(T, V))
        continue;
      if (Best == Orig || Est[V].Cost < BestCost) {
        Best = V;
        BestCost = Est[V].Cost;
      }
    }
    // The original order when its estimate is cheaper than every version's
    // and can be trusted: what one iteration of each outermost loop touches
    // fits the buffer (else inner loops may walk it again and again, which
    // the estimate by the outermost loop does not see).
    const iopoly_tile_version &OV = T.versions[Orig];
    if (Best != Orig && OV.count && Est[Orig].Cost < BestCost && iopoly_tile_max_box(&T, Orig, Stripe) <= Frames)
      Best = Orig;
  }
  // Everything fits: any order fetches each stripe once; the processor's
  // caches decide.
  uint64_t All = allStripes(T, Stripe);
  if (All && All <= Frames) {
    Best = Orig;
    for (uint32_t V = 0; V < Orig; ++V)
      if (isInMemoryVersion(T, V) && !excluded(V))
        Best = V;
  }
  return Best;
}

uint32_t pickTileVersionForTasks(const iopoly_tile_table &T, uint64_t Stripe, uint64_t Frames, uint32_t Disks,
                                 const std::vector<VersionEstimate> &Est, bool Replayed, uint32_t Alone) {
  uint32_t Orig = T.num_versions - 1;
  auto dataTiled = [&](uint32_t V) { return V < Orig && !isBandVersion(T, V) && !isInMemoryVersion(T, V); };
  if (!dataTiled(Alone))
    return Alone; // the original order, Polly's tiles or the data that fit: no unit to change
  auto spansDisks = [&](uint32_t V) { return T.versions[V].unit >= Stripe * std::max<uint32_t>(1, Disks); };
  auto twoFit = [&](uint32_t V) { return tasksFitHalfBuffer(2 * Est[V].Need, Frames); };
  if (spansDisks(Alone) && twoFit(Alone))
    return Alone;
  for (bool TwoFit : {true, false}) {
    std::vector<bool> Among(T.num_versions, false);
    for (uint32_t V = 0; V < Orig; ++V)
      Among[V] = dataTiled(V) && spansDisks(V) && (!TwoFit || twoFit(V));
    uint32_t W = pickTileVersion(T, Stripe, Frames, Est, Replayed, &Among);
    if (dataTiled(W) && Est[W].Cost <= MaxCostForTasks * Est[Alone].Cost)
      return W;
  }
  return Alone;
}

} // namespace iopoly
