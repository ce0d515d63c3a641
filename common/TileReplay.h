//===- TileReplay.h - Stripe fetches of a band version, replayed -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The cost of a version of restructured loops (iopoly/tiling.h) at the
// run's stripe size and buffer, from its footprint model
// (plugin/Analysis/FootprintModel.h): each loop nest is replayed at the
// shallowest depth whose iterations ("tiles") fit 3/4 of the buffer; the
// tiles are visited in their order (a triangular nest's tiles differ in
// size: each is replayed whole where it fits, else as its tiles one depth
// deeper) and the stripes each one touches go
// through an LRU buffer of the run's capacity, as the runtime keeps them:
// a stripe is fetched when it comes into the buffer (but the first time
// when the loops only write it), a stripe evicted dirty is written back.
// Each request (fetch or write-back) is priced by the disk model. Inside a
// tile the stripes of its arrays are requested in turn, as loops walking
// them in step would (what the tile only writes first); the real order of
// accesses is not known, but a tile whose stripes fit the buffer fetches
// each of them at most once, whatever that order. A term applies only to
// the tiles where its statements run (from/upto of iopoly/tiling.h). Reuse
// between tiles, the stripes neighbouring tiles share and the data one loop
// nest leaves for the next are all seen, for any loop shape.
//
// The work is bounded: when a nest has more tiles than the budget allows,
// some iterations of its outer loops are replayed (from where every
// statement restricted along them runs) and their fetches scaled to the
// whole nest; a short sequence of statements is kept whole, and a nest's
// walk is planned to at most 16 times the budget.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_COMMON_TILEREPLAY_H
#define IOPOLY_COMMON_TILEREPLAY_H

#include "iopoly/tiling.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace iopoly {

/// What one stripe fetch costs: a request that continues the previous one
/// of its disk (the array's next stripe there) is cheaper on a disk that
/// seeks. Stripe s of an array is on disk s mod Disks.
struct FetchCost {
  double Random = 1;     ///< seconds (or any unit) of a random request
  double Sequential = 1; ///< of a request that continues its disk's last one
  uint32_t Disks = 1;
};

/// The cost of fetching a stripe of \p Stripe bytes from a disk that takes
/// \p Latency (\p SeqLatency when the request continues the last one) plus
/// the transfer at \p BytesPerSec.
inline FetchCost fetchCost(double Latency, double SeqLatency, double BytesPerSec, uint64_t Stripe, uint32_t Disks) {
  FetchCost C;
  C.Random = Latency + static_cast<double>(Stripe) / BytesPerSec;
  C.Sequential = SeqLatency + static_cast<double>(Stripe) / BytesPerSec;
  C.Disks = Disks;
  return C;
}

struct ModelReplay {
  double Fetches = 0;    ///< estimated stripe fetches of the version
  double Cost = 0;       ///< their cost and the write-backs' (FetchCost units)
  double Requests = 0;   ///< fetches and write-backs: the cost if every request cost 1
  uint64_t Need = 0;     ///< stripes the largest tile replayed touches (bound)
  bool Fits = true;      ///< every nest has a depth whose tiles fit 3/4 of the buffer
  bool Sampled = false;  ///< part of a nest was replayed and scaled
  uint64_t Touches = 0;  ///< stripe touches replayed (runs to one stripe count once)
  double Outside = 0;    ///< share of the replayed bytes that fell outside their array
};

/// Whether version \p V of \p T has a footprint model.
inline bool hasModel(const iopoly_tile_table &T, uint32_t V) {
  return V < T.num_versions && T.versions[V].model_count && T.bands && T.band_terms;
}

/// Stripe touches replayed per band at most (the rest is sampled).
constexpr uint64_t ReplayBudget = 1u << 18;

/// The band terms [First, Last) of band Band of a table.
struct BandSpan {
  uint32_t Band, First, Last;
};

struct BandWalk;

/// The walks of one table's bands, kept between replays: what the tiles
/// touch does not depend on the buffer, so replays of the same versions at
/// many buffer sizes (the compiler's grid of plausible runs) walk each
/// band once per stripe size. At most MaxSteps stripe touches are kept.
class ReplayWalks {
public:
  ReplayWalks();
  ~ReplayWalks();
  /// The walk of one nest (its bands \p Spans by depth) from depth
  /// \p Start down to at most \p Pick, with \p Room stripes for a tile.
  const BandWalk &walk(const iopoly_tile_table &T, const std::vector<BandSpan> &Spans, size_t Start, size_t Pick,
                       uint64_t Room, uint64_t Stripe, uint64_t Budget);

private:
  struct Kept;
  std::unique_ptr<Kept> K;
};

/// Whether every nest of version \p V's footprint model has a depth whose
/// tiles fit 3/4 of a buffer of \p Frames stripes of \p Stripe bytes
/// (ModelReplay::Fits, without the replay); \p Need as ModelReplay::Need.
bool modelFits(const iopoly_tile_table &T, uint32_t V, uint64_t Stripe, uint64_t Frames, uint64_t &Need);

/// Replays the footprint model of version \p V of \p T with stripes of
/// \p Stripe bytes and a buffer of \p Frames stripes, each fetch costed by
/// \p Cost. \p Budget bounds the stripe accesses replayed. \p Walks, when
/// given, keeps the bands' walks for later replays of the same table.
ModelReplay replayModel(const iopoly_tile_table &T, uint32_t V, uint64_t Stripe, uint64_t Frames,
                        const FetchCost &Cost = FetchCost(), uint64_t Budget = ReplayBudget,
                        ReplayWalks *Walks = nullptr);

} // namespace iopoly

#endif
