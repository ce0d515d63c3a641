//===- BandTiling.h - Polly's schedule tiled for the buffer -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Out-of-core tiling: the schedule Polly's isl scheduler computes for a SCoP
// (loop interchange, fusion, skewing, chosen by dependence distances; the
// one mode=clo starts from) with its outermost permutable bands tiled at a
// few tile sizes, one version each; and, where it differs, the schedule the
// scheduler finds when asked to keep each statement's row-walking loop
// innermost instead of its parallel loops outermost (rowWalks below), tiled
// at the middle sizes. Polly tiles
// for the L1 cache (32 by default); a buffer of stripes needs tiles sized
// to the buffer the program runs with, which the compiler does not know.
// So each tile size is a version of the restructured SCoP (DiskReuse.cpp),
// and the runtime picks one from the run's buffer and stripe.
//
// For that choice every version carries its footprint model
// (FootprintModel.h), which the runtime replays through an LRU buffer of its
// size (common/TileReplay.h).
//
// Bands that are not permutable or have one member are left as they are.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_BANDTILING_H
#define IOPOLY_PLUGIN_ANALYSIS_BANDTILING_H

#include "Analysis/FootprintModel.h"

#include "isl/isl-noexceptions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}
namespace polly {
class Scop;
}

namespace iopoly {

struct BandVersion {
  unsigned Tile = 0;             ///< iterations per tile along every tiled loop
  bool RowWalks = false;         ///< the scheduler was asked for rows innermost (rowWalks)
  isl::schedule Schedule;        ///< the whole SCoP's schedule in this version
  FootprintModel Model;          ///< for the run-time choice
};

struct BandPlan {
  std::vector<BandVersion> Versions; ///< one per tile size (none: see Why)
  unsigned TiledBands = 0;           ///< bands tiled in each version
  std::string Why;                   ///< no version: why, in the user's terms
};

/// Polly's isl scheduler on \p S with the dependences \p Deps as validity,
/// proximity and coincidence constraints (as Polly's IslScheduleOptimizer
/// sets them), without Polly's post-optimizations (tiling, pattern
/// matching). With \p Spatial, those pairs are proximity constraints too and
/// there are no coincidence constraints (locality, not parallelism). With
/// \p SimplifyByDomains the dependences are simplified by the statements'
/// domains first, as Polly does by default; without, the exact dependences
/// are a larger problem and the schedule's coefficients are bounded by
/// exactDepsMaxCoefficient() instead of Polly's 20. Null when the scheduler
/// gives up (its operation quota).
isl::schedule islSchedule(polly::Scop &S, const isl::union_map &Deps, const isl::union_map &Spatial = {},
                          bool SimplifyByDomains = true);

/// For every statement, pairs of its instances one step apart along the loop
/// that walks most of its disk-resident data along rows (the next element
/// of each such access): as proximity, they ask the scheduler to keep that
/// loop innermost.
isl::union_map rowWalks(polly::Scop &S, const std::vector<DiskArray> &Arrays);

/// The versions of \p S at each of \p Tiles: Polly's schedule with its
/// outermost permutable bands of at least two loops tiled, and their
/// footprint models. No version when no band can be tiled or a footprint
/// cannot be modelled (sizes unknown at compile time).
BandPlan planBandTiling(polly::Scop &S, const isl::union_map &Deps, const std::vector<DiskArray> &Arrays,
                        const std::vector<unsigned> &Tiles);

/// Human-readable dump of a plan: per version its footprint model.
void printBandPlan(llvm::raw_ostream &OS, const BandPlan &P, const std::vector<DiskArray> &Arrays);

} // namespace iopoly

#endif
