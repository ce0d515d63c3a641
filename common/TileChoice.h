//===- TileChoice.h - Which version of restructured loops runs --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one rule, used by the runtime (__iopoly_pick_version) and by the
// compiler (-iopoly-buffer, printed plans). Where every version of a table
// (iopoly/tiling.h) has a footprint model, each is replayed through an LRU
// buffer of the run's size (common/TileReplay.h) and, of those whose tiles
// fit 3/4 of the buffer, the one whose fetches cost least (random and
// sequential requests priced by the disk model) runs; the original order
// unless another saves more than 2% of its cost. Otherwise, the older rule on the data-tiled versions:
// among those whose tiles need at most 3/4 of the buffer the one with the
// fewest fetches by the formula of iopoly/tiling.h; the original order when
// none fits, or when its own estimate is lower and can be trusted (one
// iteration of each of its outermost loops fits). When all the data fit,
// no order fetches a stripe twice: the version compiled for that case
// (Polly's schedule as clo compiles it, IOPOLY_VERSION_IN_MEMORY) where
// there is one, else the original order. That version is replayed and
// compared with the others too where it has a footprint model.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_COMMON_TILECHOICE_H
#define IOPOLY_COMMON_TILECHOICE_H

#include "TileReplay.h"
#include "iopoly/tiling.h"

#include <cstdint>
#include <vector>

namespace iopoly {

/// A version whose replayed model places more than this share of its bytes
/// outside the arrays is not chosen: such a model does not describe its
/// loops (tiles that are not a box moving by fixed steps, as a skewed
/// schedule's are), so its estimate is not trusted either.
constexpr double MaxModelOutside = 0.5;
/// A version replaces the original order only where its estimated cost is
/// at most this share of the original order's: the replayed models are not
/// exact (PolyBench trmm's tiles of 4 at 16 frames: 1.88 million fetches
/// estimated, 2.18 million run; the original order's 4.07 million are
/// exact), and the original order is the program as written.
constexpr double MaxCostAgainstOriginal = 0.90;
/// Among the versions whose estimated cost is within this factor of the
/// cheapest, the one with the fewest requests runs: the replayed counts
/// are close (PolyBench gemm at LARGE, 4 KiB stripes, 883 frames: 170,101
/// fetches estimated for Polly's tiles of 16 with rows innermost, 171,268
/// run), their prices less so, since the order of the requests on each
/// disk is modeled, not known (the same version: 201 s estimated, 1,119 s
/// run; the data tiles beside it, 32,441 fetches, were estimated at 206 s).
constexpr double MaxCostForFewerRequests = 1.10;

/// What the rule found for one version.
struct VersionEstimate {
  uint64_t Need = 0;   ///< stripes its largest tile keeps in the buffer
  double Fetches = 0;  ///< estimated stripe fetches
  double Cost = 0;     ///< what the choice compares: their cost (replayed) or the fetches (formula)
  double Requests = 0; ///< replayed fetches and write-backs (the cost when every request costs the same)
  bool Fits = false;   ///< may run: its tiles fit 3/4 of the buffer
  double Outside = 0;  ///< share of its replayed bytes outside the arrays
  bool Replayed = true; ///< false: a version whose tiles do not fit, not replayed (no fetches)
};

/// The version to run with stripes of \p Stripe bytes and a buffer of
/// \p Frames stripes, fetches costed by \p Cost; fills \p Out (one entry
/// per version) when given.
uint32_t chooseTileVersion(const iopoly_tile_table &T, uint64_t Stripe, uint64_t Frames,
                           std::vector<VersionEstimate> *Out = nullptr, const FetchCost &Cost = FetchCost());

/// What chooseTileVersion does, in two steps: every version's estimate at
/// \p Stripe and \p Frames with requests priced by \p Cost (\p Replayed:
/// whether they come from the replayed models), then the choice among
/// them. The compiler asks for both choices of one replay (priced by its
/// disk model, and by the number of requests: VersionEstimate::Requests).
/// \p Walks, when given, keeps the replays' walks for later calls on the
/// same table.
/// \p Only, when given, marks the versions to estimate (the others' entries
/// stay empty): a caller that needs one version's cost does not replay the
/// rest.
std::vector<VersionEstimate> estimateTileVersions(const iopoly_tile_table &T, uint64_t Stripe, uint64_t Frames,
                                                  const FetchCost &Cost, bool &Replayed,
                                                  ReplayWalks *Walks = nullptr,
                                                  const std::vector<bool> *Only = nullptr);
/// \p Among, when given, marks the versions that may be picked (the
/// original order always may): the choice were the others not compiled.
uint32_t pickTileVersion(const iopoly_tile_table &T, uint64_t Stripe, uint64_t Frames,
                         const std::vector<VersionEstimate> &Est, bool Replayed,
                         const std::vector<bool> *Among = nullptr);

/// Where the loops' parallel loops run as tasks on more than one thread
/// (IOPOLY_TABLE_TASKS): the data-tiled versions whose tasks keep the
/// threads' I/O apart from each other. A task is one unit; a unit smaller
/// than a stripe on every one of \p Disks disks puts all of a task's
/// requests on one or a few disks, each thread then waits for one disk at
/// a time (and the global disk map gathers the threads on the same disks):
/// the bench kernel multisweep at 1/8 of its data, ssd, 8 threads, units of
/// one stripe: 4.0x the modeled I/O of units of 16 stripes. Tiles of which
/// two do not fit in half the buffer run one at a time (the scheduler's
/// capacity rule, runtime/sched/ParallelLoop.cpp). So: among the versions
/// whose units span every disk and of which two tiles fit half the buffer,
/// else among those whose units span every disk, the choice of
/// pickTileVersion, if its estimate is at most MaxCostForTasks times the
/// one-thread choice's; else the one-thread choice (\p Alone).
uint32_t pickTileVersionForTasks(const iopoly_tile_table &T, uint64_t Stripe, uint64_t Frames, uint32_t Disks,
                                 const std::vector<VersionEstimate> &Est, bool Replayed, uint32_t Alone);
/// How much more a version may cost, by the one-thread estimate, than the
/// one-thread choice for its tasks to be preferred.
constexpr double MaxCostForTasks = 1.25;
/// The scheduler's capacity rule for tasks (runtime/sched/ParallelLoop.cpp):
/// another task starts only while the running tasks' tiles and its own,
/// \p Stripes in all, fill at most half of the \p Frames of the buffer; the
/// other half is for what they read ahead.
inline bool tasksFitHalfBuffer(uint64_t Stripes, uint64_t Frames) { return 2 * Stripes <= Frames; }

/// Whether version \p V of \p T is a band version.
inline bool isBandVersion(const iopoly_tile_table &T, uint32_t V) {
  return V < T.num_versions && (T.versions[V].flags & IOPOLY_VERSION_BANDS);
}

/// Whether version \p V of \p T is the one for data that fit the buffer.
inline bool isInMemoryVersion(const iopoly_tile_table &T, uint32_t V) {
  return V < T.num_versions && (T.versions[V].flags & IOPOLY_VERSION_IN_MEMORY);
}

} // namespace iopoly

#endif
