//===- FootprintModel.h - Where a schedule's loops touch the arrays -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The footprint model of one version of a SCoP (data-tiled, Polly's bands
// tiled, or the original order), which the runtime replays through an LRU
// buffer of the run's size to estimate the version's stripe fetches
// (common/TileReplay.h). No formula per loop shape: the same model for any
// schedule.
//
// Each top-level loop nest of the schedule is modelled at every depth d
// (its d outermost schedule dimensions, 0 <= d <= IOPOLY_BAND_MAX_DIMS): one
// iteration of those d loops is a "tile", and per array and access pattern
// a term says where the bytes of a tile lie, as runs whose first byte moves
// by a fixed step per iteration of each of the d loops. The runtime replays
// each nest at the shallowest depth whose tiles fit its buffer: inside such
// a tile every stripe is fetched at most once, whatever the order of the
// inner loops; between tiles the replay sees every reuse and every eviction.
// A triangular nest's tiles differ in size: the replay takes each whole
// where it fits and goes one depth deeper where it does not.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_FOOTPRINTMODEL_H
#define IOPOLY_PLUGIN_ANALYSIS_FOOTPRINTMODEL_H

#include "Analysis/LocalitySets.h"

#include "iopoly/tiling.h"

#include "isl/isl-noexceptions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace iopoly {

/// Where one tile touches one array (struct iopoly_band_term).
struct ModelTerm {
  int64_t Base = 0;                    ///< first byte of the tile at coordinates 0
  std::vector<int64_t> Step;           ///< bytes the first byte moves per iteration of each loop
  std::vector<uint64_t> From, Upto;    ///< the tiles it applies to: From[d] <= t[d] < Upto[d] (Upto 0: all)
  uint64_t Outer = 1, OuterPitch = 0;  ///< runs of the outer level
  uint64_t Inner = 1, InnerPitch = 0;  ///< runs within one outer step
  uint64_t Run = 0;                    ///< bytes per run
  uint64_t Bytes = 0;                  ///< bytes of the array (0: unknown)
  unsigned Band = 0;                   ///< index of its band within the model
  unsigned Array = 0;                  ///< index in the SCoP's disk-resident arrays
  /// Triangular loops: the runs (and their bytes) of the tile at the
  /// band's first tile and what each loop's iteration adds (Inner and Run
  /// are the largest); only where Varies.
  bool Varies = false;
  int64_t InnerFirst = 0, RunFirst = 0;
  std::vector<int64_t> InnerStep, RunStep;
  bool Writes = false;                 ///< some access of the pattern writes
  bool Reads = false;                  ///< some access of the pattern reads
};

/// One loop nest modelled at one depth (struct iopoly_band).
struct ModelBand {
  std::vector<uint64_t> Count;         ///< iterations of each of the outer loops (the depth)
  unsigned Nest = 0;                   ///< loop nest of the version (bands of one nest: depth 0, 1, ...)
  /// Triangular loops: the last loop's first and last iteration (relative
  /// to the box) at the band's first tile, and what each outer loop's
  /// iteration adds to them; only where Bounded.
  bool Bounded = false;
  int64_t LoFirst = 0, HiFirst = 0;
  std::vector<int64_t> LoStep, HiStep;
};

struct FootprintModel {
  std::vector<ModelBand> Bands;        ///< by nest, then by depth
  std::vector<ModelTerm> Terms;        ///< by band
};

/// Models \p Sched (a schedule of the SCoP's statements) over \p Arrays,
/// each nest down to at most \p MaxDepth loops. False, with \p Why in the
/// user's terms, when a nest cannot be modelled (bounds unknown at compile
/// time, unbounded accesses).
///
/// The model assumes that a nest's loops run over a box and move each
/// access by a fixed step: true of Polly's schedules and of the original
/// loops (partial tiles aside). Triangular loops are modelled too, where
/// their bounds and their tiles' extents are linear in the outer loops
/// (measured at a representative tile, checked at its neighbours on both
/// sides and a quarter and three quarters of the way along the loops): a
/// loop's bounds (ModelBand::Bounded) and the runs of its tiles
/// (ModelTerm::Varies); elsewhere the box and the largest tile stand (the
/// diagonal tiles of a tiled triangle). Not of the loops inside a
/// data-tiled unit (their bounds depend on the unit), which are modelled
/// at the depth of their tile loops only (\p MaxDepth): such a version may
/// run only where its tiles fit. \p Triangles false: no triangular loops
/// (a stencil's: Polly skews its schedule, whose tiles at the edges of
/// the skewed box look like a triangle's and are not one).
bool modelSchedule(const isl::schedule &Sched, const std::vector<DiskArray> &Arrays, FootprintModel &Out,
                   std::string &Why, unsigned MaxDepth = IOPOLY_BAND_MAX_DIMS, bool Triangles = true);

/// Human-readable dump of a model.
void printFootprintModel(llvm::raw_ostream &OS, const FootprintModel &M, const std::vector<DiskArray> &Arrays);

} // namespace iopoly

#endif
