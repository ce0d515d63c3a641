//===- DataTiling.h - Buffer-sized data-centric tiling of a SCoP -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The disk-reuse restructuring of paper 1 with locality sets sized at run
// time. Instead of one loop nest per locality set, a family of sets is one
// loop over its unit index (data-centric tiling, Kodukula, Ahmed and
// Pingali, PLDI 1997): every statement instance belongs to the unit (a run
// of U consecutive bytes) its *pivot* access falls in,
//     t(x) = floor(byte_P(x) / U),
// and the new schedule of a group of families is
//     [ t, s, original schedule ]
// where s, present when some array is touched far beyond the tile (a
// matrix product's B, a transposed operand), walks that *streamed* array in
// steps of StreamUnit bytes, back and forth from one tile to the next (a
// serpentine: the minimal-Hamming walk over the grid of (t, s) units).
// The families come from the LSG (LocalitySets.h) in its Hamming order;
// consecutive families share one loop over t (are fused) when no
// dependence goes from a later unit to an earlier one.
//
// The unit size is not known at compile time: it must make one tile's
// stripes fit the buffer the program will run with. So every region is
// compiled in a few versions (unit sizes growing by 4x) plus its original
// order, selected by one SCoP parameter whose value the runtime computes
// from the actual buffer and stripe (__iopoly_pick_version, with the
// footprint and cost terms of every version; include/iopoly/abi.h). The
// number of versions and their cost do not depend on the data size.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_DATATILING_H
#define IOPOLY_PLUGIN_ANALYSIS_DATATILING_H

#include "Analysis/LocalitySets.h"

#include "isl/isl-noexceptions.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace polly {
class Scop;
class ScopStmt;
class MemoryAccess;
} // namespace polly

namespace iopoly {

struct TilingOptions {
  uint64_t Stripe = 64 << 10;   ///< stripe the compiler assumes (disk units)
  unsigned Disks = 8;           ///< disks the compiler assumes (disk units)
  bool DiskUnits = false;       ///< units are the disks of the stripes (paper's maps; one version)
  std::vector<uint64_t> Units;  ///< unit bytes of the versions, coarsest first
  uint64_t StreamUnit = 16 << 10; ///< bytes of a streamed array per step of s
  unsigned MaxSplits = 8;
  unsigned MaxGroups = 40;      ///< more groups than this: not tiled
  bool Serpentine = false;      ///< walk the stream back and forth (fewer fetches, but backward requests are random)
};

/// The pivot access of a statement: its instances are tiled by the unit of
/// the element it touches.
struct Pivot {
  int Array = -1;           ///< index in the region's arrays, -1: no disk access
  isl::map Access;          ///< Stmt[x] -> A[a], single-valued
};

/// One array in one group of one version, for the run-time choice
/// (struct iopoly_tile_term).
struct TileTerm {
  uint64_t Span = 0, Runs = 0, Run = 0; ///< box one tile touches: byte span, contiguous runs, bytes per run
  uint64_t Window = 0;  ///< streamed: bytes one step of s touches
  uint64_t Total = 0;   ///< bytes of the array in play
  uint64_t Tiles = 0;   ///< tiles of the group
  unsigned Group = 0;
  bool Streamed = false;
  bool Original = false; ///< loops in their original order (nothing must fit)
  std::string Array;    ///< for printing
  unsigned ArrayIndex = 0;
};

struct TiledGroup {
  std::vector<unsigned> Families; ///< members, in Hamming order
  bool Tiled = false;
  bool Serpentine = false;        ///< s walked back and forth
  std::string Why;                ///< untiled: why, in the user's terms
  bool Blocked = false;           ///< untiled because a dependence forbids it (else: nothing to gain)
};

/// The plan of one region (the whole SCoP for dro-wp, one loop nest for
/// dro-l).
struct RegionTiling {
  isl::union_set Domain;
  FamilyGraph Families;
  std::vector<TiledGroup> Groups;             ///< in execution order
  std::map<const polly::ScopStmt *, Pivot> Pivots;
  std::map<const polly::ScopStmt *, int> Stream; ///< statement -> streamed array (-1: none)
  std::map<const polly::ScopStmt *, long> Place; ///< statements without a pivot: before (-1) or after the tiles
  std::vector<std::vector<TileTerm>> Terms;   ///< per version (tiled ones, then the original order)
  unsigned TiledGroups = 0, Fused = 0;
  std::string Why;                            ///< nothing to do: why
  bool Blocked = false;                       ///< Why is a dependence (else: nothing to gain)
};

/// Plans the tiling of \p Region. \p Deps are the dependences the order must
/// keep (restricted to the region).
RegionTiling planRegion(polly::Scop &S, const isl::union_set &Region, const isl::union_map &Deps,
                        const std::vector<DiskArray> &Arrays, const TilingOptions &O);

/// The new schedule of the region for version \p V (an index into O.Units;
/// O.Units.size() is the original order).
isl::schedule regionSchedule(polly::Scop &S, const RegionTiling &R, const std::vector<DiskArray> &Arrays,
                             const TilingOptions &O, unsigned V);

/// The version a buffer of \p BufferBytes and stripes of \p Stripe bytes
/// would pick (the run-time rule, runtime/lowered/TileVersions.cpp, applied
/// at compile time for -iopoly-buffer and for printing).
unsigned pickVersion(const std::vector<std::vector<TileTerm>> &Terms, uint64_t BufferBytes, uint64_t Stripe);

/// Human-readable dump of a plan: families, groups, versions and terms.
void printRegionTiling(llvm::raw_ostream &OS, const RegionTiling &R, const std::vector<DiskArray> &Arrays,
                       const TilingOptions &O);

} // namespace iopoly

#endif
