//===- TileReplayTest.cpp - Replayed footprint models and the version rule -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// common/TileReplay.h and common/TileChoice.h on hand-built tables whose
// counts can be worked out on paper: sweeps, reuse between nests, the depth
// a nest is replayed at, triangular nests, sampling, and the choice between
// versions. As in
// the runtime, a stripe is fetched when it comes into the buffer, but not
// the first time when it is only written; one evicted dirty is written back
// (a request).
//
//===----------------------------------------------------------------------===//
#include "TileChoice.h"
#include "TileReplay.h"

#include <gtest/gtest.h>

#include <vector>

using namespace iopoly;

namespace {

constexpr uint64_t S = 4096; // stripe

/// A table under construction (the plugin's VersionSet, by hand).
struct Table {
  std::vector<iopoly_tile_version> Versions;
  std::vector<iopoly_band> Bands;
  std::vector<iopoly_band_term> Terms;
  std::vector<iopoly_tile_term> DataTerms;

  /// Starts a version; bands and terms added next belong to it.
  void version(uint64_t Unit = 0, uint32_t Flags = 0) {
    Versions.push_back({Unit, static_cast<uint32_t>(DataTerms.size()), 0, static_cast<uint32_t>(Terms.size()), 0,
                        Flags, 0});
  }
  /// A band of nest \p Nest with the given loop counts; returns its index.
  uint32_t band(uint32_t Nest, std::vector<uint64_t> Count) {
    iopoly_band B{};
    B.dims = static_cast<uint32_t>(Count.size());
    for (size_t K = 0; K < Count.size(); ++K)
      B.count[K] = Count[K];
    B.nest = Nest;
    Bands.push_back(B);
    return static_cast<uint32_t>(Bands.size() - 1);
  }
  /// A term of the last band: \p Runs runs of \p Run bytes, \p Pitch apart,
  /// starting at Base + Step . t.
  void term(uint16_t Array, int64_t Base, std::vector<int64_t> Step, uint64_t Runs, uint64_t Run, uint64_t Pitch,
            uint64_t Bytes, bool Writes = true, bool Reads = false) {
    iopoly_band_term T{};
    T.base = Base;
    for (size_t K = 0; K < Step.size(); ++K)
      T.step[K] = Step[K];
    T.outer = 1;
    T.inner = Runs;
    T.inner_pitch = Pitch;
    T.run = Run;
    T.bytes = Bytes;
    T.band = static_cast<uint32_t>(Bands.size() - 1);
    T.array = Array;
    T.flags = static_cast<uint16_t>((Writes ? IOPOLY_BAND_TERM_WRITES : 0) | (Reads ? IOPOLY_BAND_TERM_READS : 0));
    Terms.push_back(T);
    ++Versions.back().model_count;
  }
  iopoly_tile_table table() const {
    return {IOPOLY_TILE_ABI, static_cast<uint32_t>(Versions.size()), Versions.data(), DataTerms.data(), "test", -1, 0,
            Bands.data(), Terms.data()};
  }
};

/// One nest sweeping \p Stripes stripes of array 0, one stripe per
/// iteration, modelled at depth 0 (all of it) and depth 1.
void sweep(Table &T, uint32_t Nest, uint64_t Stripes, uint16_t Array = 0) {
  T.band(Nest, {});
  T.term(Array, 0, {}, 1, Stripes * S, 0, Stripes * S);
  T.band(Nest, {Stripes});
  T.term(Array, 0, {static_cast<int64_t>(S)}, 1, S, 0, Stripes * S);
}

TEST(TileReplay, ASweepFetchesNothingAndWritesBackWhatItEvicts) {
  for (uint64_t Frames : {4u, 16u, 200u}) {
    Table T;
    T.version();
    sweep(T, 0, 100);
    iopoly_tile_table Tab = T.table();
    ModelReplay R = replayModel(Tab, 0, S, Frames);
    EXPECT_DOUBLE_EQ(R.Fetches, 0) << Frames << " frames";
    EXPECT_DOUBLE_EQ(R.Cost, Frames >= 100 ? 0 : 100 - Frames) << Frames << " frames";
    EXPECT_FALSE(R.Sampled);
  }
}

TEST(TileReplay, TheShallowestDepthThatFitsIsReplayed) {
  Table T;
  T.version();
  sweep(T, 0, 100);
  iopoly_tile_table Tab = T.table();
  // 200 frames: the whole sweep (depth 0) fits; 16: one stripe per tile.
  // (Need is a bound: a run at an unknown alignment may touch one stripe
  // more than its length.)
  EXPECT_EQ(replayModel(Tab, 0, S, 200).Need, 101u);
  EXPECT_EQ(replayModel(Tab, 0, S, 16).Need, 2u);
}

TEST(TileReplay, TermsOfOneArrayMovingAlikeKeepTheirCommonSpan) {
  // A stencil's tile (32 rows of 32 KiB) reads rows r-1..r+1 and writes row
  // r of one array: the read runs and the written ones lie in one band of
  // 34 rows. Counted apart they looked twice their size (jacobi-2d's tiles
  // of 32 were replayed a depth too deep).
  constexpr uint64_t Row = 8 * S, Rows = 64;
  Table T;
  T.version();
  T.band(0, {Rows / 32});
  T.term(0, -static_cast<int64_t>(Row), {static_cast<int64_t>(32 * Row)}, 32, 3 * Row, Row, Rows * Row,
         /*Writes=*/false, /*Reads=*/true);
  T.term(0, 0, {static_cast<int64_t>(32 * Row)}, 32, Row, Row, Rows * Row);
  iopoly_tile_table Tab = T.table();
  uint64_t Need;
  ASSERT_TRUE(modelFits(Tab, 0, S, 400, Need));
  EXPECT_EQ(Need, 34u * 8 + 1); // the common span (34 rows), not 273 + 257
  // Terms that move differently (a transpose's write) stay counted apart.
  Table U;
  U.version();
  U.band(0, {Rows / 32});
  U.term(0, 0, {static_cast<int64_t>(32 * Row)}, 32, Row, Row, Rows * Row, false, true);
  U.term(0, 0, {static_cast<int64_t>(Row)}, 32, Row, Row, Rows * Row);
  iopoly_tile_table UTab = U.table();
  ASSERT_TRUE(modelFits(UTab, 0, S, 1000, Need));
  EXPECT_EQ(Need, 2u * (32 * 8 + 1));
}

TEST(TileReplay, ASecondNestFetchesWhatWasWrittenBack) {
  Table T;
  T.version();
  sweep(T, 0, 50);
  sweep(T, 1, 50);
  iopoly_tile_table Tab = T.table();
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 64).Fetches, 0);  // all of it stays
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 40).Fetches, 50); // LRU: every stripe was written back
}

TEST(TileReplay, RowsSmallerThanAStripeShareIt) {
  // A column-wise update of a 64 x 64 matrix of doubles (rows of 512 bytes,
  // 8 per stripe) one element per iteration: each stripe is touched by 8
  // rows of every column.
  Table T;
  T.version();
  T.band(0, {64, 64}); // j outer, i inner: A[i][j] += ...
  T.term(0, 0, {8, 512}, 1, 8, 0, 64 * 512, /*Writes=*/true, /*Reads=*/true);
  iopoly_tile_table Tab = T.table();
  // The buffer holds the 8 stripes of a column: each is fetched once.
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 8).Fetches, 8);
  // Two frames: every column fetches all 8 stripes again.
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 2).Fetches, 64 * 8);
}

TEST(TileReplay, WhatATileOnlyWritesComesFirst) {
  // One tile writes a stripe (an initialisation) and reads it (its use):
  // the write is taken to come first, so no fetch.
  Table T;
  T.version();
  T.band(0, {10});
  T.term(0, 0, {static_cast<int64_t>(S)}, 1, S, 0, 10 * S, /*Writes=*/false, /*Reads=*/true);
  T.term(0, 0, {static_cast<int64_t>(S)}, 1, S, 0, 10 * S, /*Writes=*/true, /*Reads=*/false);
  iopoly_tile_table Tab = T.table();
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 4).Fetches, 0);
}

TEST(TileReplay, ReadsFetchAndCleanStripesAreDropped) {
  Table T;
  T.version();
  T.band(0, {100});
  T.term(0, 0, {static_cast<int64_t>(S)}, 1, S, 0, 100 * S, /*Writes=*/false, /*Reads=*/true);
  iopoly_tile_table Tab = T.table();
  ModelReplay R = replayModel(Tab, 0, S, 4);
  EXPECT_DOUBLE_EQ(R.Fetches, 100);
  EXPECT_DOUBLE_EQ(R.Cost, 100); // no write-backs
}

TEST(TileReplay, SequentialRequestsCostLess) {
  // Four disks: requests for stripes 0, 1, 2, ... continue their disk's
  // last request from the second round of disks on.
  Table T;
  T.version();
  sweep(T, 0, 100);
  iopoly_tile_table Tab = T.table();
  FetchCost C;
  C.Random = 10;
  C.Sequential = 1;
  C.Disks = 4;
  // 84 write-backs in the order of the stripes: the first of each disk
  // random, the rest sequential.
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 16, C).Cost, 4 * 10 + 80 * 1);
  // Two arrays written in step (an initialisation of both in one loop):
  // each disk alternates between their files, every write-back a seek.
  Table Two;
  Two.version();
  Two.band(0, {100});
  for (uint16_t A = 0; A < 2; ++A)
    Two.term(A, 0, {static_cast<int64_t>(S)}, 1, S, 0, 100 * S, /*Writes=*/true, /*Reads=*/false);
  iopoly_tile_table TwoTab = Two.table();
  EXPECT_DOUBLE_EQ(replayModel(TwoTab, 0, S, 16, C).Cost, 184 * 10);
  // Reads of every stripe: the first of each disk random, the rest
  // sequential.
  Table R;
  R.version();
  R.band(0, {100});
  R.term(0, 0, {static_cast<int64_t>(S)}, 1, S, 0, 100 * S, /*Writes=*/false, /*Reads=*/true);
  iopoly_tile_table RTab = R.table();
  EXPECT_DOUBLE_EQ(replayModel(RTab, 0, S, 16, C).Cost, 4 * 10 + 96 * 1);
}

TEST(TileReplay, ATermAppliesOnlyWhereItsStatementRuns) {
  // gemm's original order: for i { for j: C[i][j] *= beta;  for k, j:
  // C[i][j] += A[i][k] * B[k][j]; } modelled at depth 2, (i, position in
  // the sequence): B is read at position 1 only. Without that, the replay
  // walked B twice per row of C.
  constexpr uint64_t Rows = 20, BStripes = 40;
  Table T;
  T.version();
  T.band(0, {Rows, 2});
  T.term(0, 0, {static_cast<int64_t>(S), 0}, 1, S, 0, Rows * S, /*Writes=*/true, /*Reads=*/true); // C, row i
  T.term(1, 0, {0, 0}, 1, BStripes * S, 0, BStripes * S, /*Writes=*/false, /*Reads=*/true);          // all of B
  iopoly_tile_table Tab = T.table();
  // 64 frames: B stays; every stripe is fetched once either way.
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 64).Fetches, Rows + BStripes);
  // 32 frames: B does not stay, one walk of B per tile that reads it.
  // (C row i is touched in the middle of each walk, and evicted between
  // its two tiles.)
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 32).Fetches, 2 * Rows + 2 * Rows * BStripes);
  T.Terms.back().from[1] = 1;
  T.Terms.back().upto[1] = 2;
  Tab = T.table();
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 32).Fetches, Rows + Rows * BStripes);
}

TEST(TileReplay, ArraysWalkedTogetherAreRequestedInTurn) {
  // One tile reads 16 stripes of each of two arrays: the inner loops walk
  // them in step, so on each of the 4 disks the requests alternate between
  // the two files, every one a seek; one array after the other would be
  // sequential after each disk's first request.
  Table T;
  T.version();
  T.band(0, {1});
  T.term(0, 0, {0}, 1, 16 * S, 0, 16 * S, /*Writes=*/false, /*Reads=*/true);
  T.term(1, 0, {0}, 1, 16 * S, 0, 16 * S, /*Writes=*/false, /*Reads=*/true);
  iopoly_tile_table Tab = T.table();
  FetchCost C;
  C.Random = 10;
  C.Sequential = 1;
  C.Disks = 4;
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 64, C).Cost, 32 * 10);
}

TEST(TileReplay, ALargeNestIsSampledAndScaled) {
  Table T;
  T.version();
  T.band(0, {4096, 1024}); // 4M iterations over 4096 x 1024 stripes
  T.term(0, 0, {static_cast<int64_t>(1024 * S), static_cast<int64_t>(S)}, 1, S, 0, 4096 * 1024 * S);
  iopoly_tile_table Tab = T.table();
  ModelReplay R = replayModel(Tab, 0, S, 64, FetchCost(), /*Budget=*/1 << 16);
  EXPECT_TRUE(R.Sampled);
  // Every stripe written once and evicted: a write-back each (but the last
  // 64 of the part replayed), scaled to the whole nest.
  EXPECT_NEAR(R.Cost, 4096.0 * 1024, 64.0 * 4096 / 21 + 1);
}

/// A triangular nest: for k < 64, read element 0 of rows 0 .. k of a
/// 64-row array whose rows are a stripe each (PolyBench trmm's column
/// walks, in Polly's order). Modelled at depth 0 (all of it), depth 1 (one
/// k: rows 0 .. k, a tile that grows with k) and depth 2 (one element);
/// \p Triangular: with the tile's growth and the inner loop's bound (else
/// the largest tile and the box, as a model without them would say).
void triangle(Table &T, bool Triangular) {
  T.band(0, {});
  T.term(0, 0, {}, 64, 8, S, 64 * S, /*Writes=*/false, /*Reads=*/true);
  T.band(0, {64});
  T.term(0, 0, {0}, 64, 8, S, 64 * S, false, true);
  if (Triangular) {
    T.Terms.back().flags |= IOPOLY_BAND_TERM_VARIES;
    T.Terms.back().inner_first = 1; // rows 0 .. k: k + 1 runs
    T.Terms.back().inner_step[0] = 1;
    T.Terms.back().run_first = 8;
  }
  uint32_t Inner = T.band(0, {64, 64});
  if (Triangular) {
    T.Bands[Inner].flags = IOPOLY_BAND_BOUNDED; // i from 0 to k
    T.Bands[Inner].hi_step[0] = 1;
  }
  T.term(0, 0, {0, static_cast<int64_t>(S)}, 1, 8, 0, 64 * S, false, true);
}

TEST(TileReplay, ATriangularNestIsReplayedTileByTile) {
  // 32 frames (24 for a tile): the tiles of k <= 22 fit and are replayed
  // whole; the others element by element, i up to k only. As the runtime's
  // LRU buffer would: one fetch per k while rows 0 .. k fit the buffer
  // (k <= 32: row 0 is still there when k = 32 starts), then every row of
  // the column again (k + 1).
  Table T;
  T.version();
  triangle(T, true);
  iopoly_tile_table Tab = T.table();
  ModelReplay R = replayModel(Tab, 0, S, 32);
  EXPECT_DOUBLE_EQ(R.Fetches, 33 + (34 + 64) * 31 / 2);
  EXPECT_FALSE(R.Sampled);
  // Without the triangle: the whole column for every k.
  Table Box;
  Box.version();
  triangle(Box, false);
  iopoly_tile_table BoxTab = Box.table();
  EXPECT_DOUBLE_EQ(replayModel(BoxTab, 0, S, 32).Fetches, 64 * 64);
  // All of it fits: each row once.
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 128).Fetches, 64);
}

TEST(TileReplay, ASampledTriangleIsReplayedAcrossItsLoop) {
  // Along k the tiles grow: a budget that keeps 8 iterations of k takes
  // them spread over the loop (k = 4, 12, ..., 60), not the first
  // (smallest) ones: 5 + 8 + 8 + 8 rows fetched up to k = 28, 8 at k = 36
  // (rows 0 .. 28 are still there), then 45 + 53 + 61 (every row of the
  // column), scaled by 64 / 8: 1,568 (1,552 replayed whole; 29 x 8 = 232
  // from the first 8 iterations).
  Table T;
  T.version();
  triangle(T, true);
  iopoly_tile_table Tab = T.table();
  ModelReplay R = replayModel(Tab, 0, S, 32, FetchCost(), /*Budget=*/1024);
  EXPECT_TRUE(R.Sampled);
  EXPECT_DOUBLE_EQ(R.Fetches, 1568);
}

TEST(TileReplay, AWalkStaysWithinItsShareOfTheBudgetWhateverItKeepsWhole) {
  // Two sequences of 16 statement positions around a loop over 4096
  // stripes: each sequence is replayed whole, and the loop inside them cut.
  // The cut alone would plan 16 x 16 x 341 tiles of 3 touches (the budget
  // of 1024 again for every position pair); the walk is held to 16 times
  // the budget instead.
  Table T;
  T.version();
  T.band(0, {16, 16, 4096});
  T.term(0, 0, {0, 0, static_cast<int64_t>(S)}, 1, S, 0, 4096 * S, /*Writes=*/false, /*Reads=*/true);
  T.Terms.back().upto[0] = T.Terms.back().upto[1] = 16; // restricted: a sequence
  iopoly_tile_table Tab = T.table();
  ModelReplay R = replayModel(Tab, 0, S, 64, FetchCost(), /*Budget=*/1024);
  EXPECT_TRUE(R.Sampled);
  EXPECT_GT(R.Touches, 0u);
  EXPECT_LE(R.Touches, 16u * 1024);
  // Within the budget nothing changes: every touch replayed.
  ModelReplay Whole = replayModel(Tab, 0, S, 64, FetchCost(), /*Budget=*/16 * 16 * 4096 * 3);
  EXPECT_FALSE(Whole.Sampled);
  EXPECT_EQ(Whole.Touches, 16u * 16 * 4096);
}

TEST(TileChoice, TheVersionForDataThatFitIsCostedWhereItHasAModel) {
  Table T;
  T.version(8, IOPOLY_VERSION_BANDS);
  sweep(T, 0, 100);
  sweep(T, 1, 100);
  // Polly's schedule as clo compiles it, with its model: the cheapest
  // version out of core too.
  T.version(32, IOPOLY_VERSION_IN_MEMORY);
  sweep(T, 0, 100);
  T.version();
  sweep(T, 0, 100);
  sweep(T, 1, 100);
  sweep(T, 2, 100);
  iopoly_tile_table Tab = T.table();
  std::vector<VersionEstimate> E;
  EXPECT_EQ(chooseTileVersion(Tab, S, 16, &E), 1u);
  EXPECT_DOUBLE_EQ(E[1].Cost, 84);
  EXPECT_TRUE(E[1].Fits);
}

TEST(TileChoice, TheCheapestReplayedVersionRuns) {
  Table T;
  // Version 0 (a band version): sweeps its data once.
  T.version(8, IOPOLY_VERSION_BANDS);
  sweep(T, 0, 100);
  // Version 1 (the original order): the same data twice, in two nests.
  T.version();
  sweep(T, 0, 100);
  sweep(T, 1, 100);
  iopoly_tile_table Tab = T.table();
  std::vector<VersionEstimate> E;
  EXPECT_EQ(chooseTileVersion(Tab, S, 16, &E), 0u);
  EXPECT_DOUBLE_EQ(E[0].Cost, 84);            // write-backs
  EXPECT_DOUBLE_EQ(E[1].Cost, 84 + 100 + 100); // and every stripe fetched and written again
  // A buffer that holds everything: the original order.
  EXPECT_EQ(chooseTileVersion(Tab, S, 400), 1u);
}

TEST(TileChoice, TheVersionForDataThatFitRunsOnlyWhenTheyFit) {
  Table T;
  T.version(8, IOPOLY_VERSION_BANDS);
  sweep(T, 0, 100);
  // Polly's schedule as clo compiles it: no model, never costed.
  T.version(32, IOPOLY_VERSION_IN_MEMORY);
  T.version();
  sweep(T, 0, 100);
  sweep(T, 1, 100);
  iopoly_tile_table Tab = T.table();
  std::vector<VersionEstimate> E;
  // The other versions are still replayed and compared.
  EXPECT_EQ(chooseTileVersion(Tab, S, 16, &E), 0u);
  EXPECT_DOUBLE_EQ(E[0].Cost, 84);
  EXPECT_FALSE(E[1].Fits);
  // Everything fits: the version for that case.
  EXPECT_EQ(chooseTileVersion(Tab, S, 400), 1u);
  // ... unless it may not be picked: the original order.
  bool Replayed;
  std::vector<VersionEstimate> Est = estimateTileVersions(Tab, S, 400, FetchCost(), Replayed);
  EXPECT_TRUE(Replayed);
  std::vector<bool> Among = {true, false, true};
  EXPECT_EQ(pickTileVersion(Tab, S, 400, Est, Replayed, &Among), 2u);
}

TEST(TileChoice, TheOriginalOrderWinsWhatIsWithinTwoPercent) {
  Table T;
  T.version(8, IOPOLY_VERSION_BANDS);
  sweep(T, 0, 99);
  T.version();
  sweep(T, 0, 100);
  iopoly_tile_table Tab = T.table();
  EXPECT_EQ(chooseTileVersion(Tab, S, 16), 1u);
}

TEST(TileChoice, WithoutAModelOfEveryVersionBandVersionsAreNotCandidates) {
  Table T;
  T.version(8, IOPOLY_VERSION_BANDS);
  sweep(T, 0, 10);
  T.version(); // the original order, no model, no data terms
  iopoly_tile_table Tab = T.table();
  EXPECT_EQ(chooseTileVersion(Tab, S, 16), 1u);
}

TEST(TileReplay, BytesPlacedOutsideTheArrayAreCounted) {
  Table T;
  T.version();
  T.band(0, {});
  T.term(0, 0, {}, 1, 100 * S, 0, 100 * S);
  T.band(0, {100});
  // Each tile one stripe, stepping backwards from the start: only the
  // first lands in the array.
  T.term(0, 0, {-static_cast<int64_t>(S)}, 1, S, 0, 100 * S);
  iopoly_tile_table Tab = T.table();
  ModelReplay R = replayModel(Tab, 0, S, 16);
  EXPECT_DOUBLE_EQ(R.Outside, 0.99);
  EXPECT_DOUBLE_EQ(replayModel(Tab, 0, S, 200).Outside, 0); // depth 0: the whole array
}

TEST(TileChoice, AVersionWhoseModelIsOffTheArraysIsNotChosen) {
  Table T;
  // Version 0: tiles stepping off the array (as a skewed schedule's tiles
  // do under a box model): almost nothing fetched, not to be believed.
  T.version(8, IOPOLY_VERSION_BANDS);
  T.band(0, {});
  T.term(0, 0, {}, 1, 100 * S, 0, 100 * S, true, true);
  T.band(0, {100});
  T.term(0, 0, {-static_cast<int64_t>(S)}, 1, S, 0, 100 * S, true, true);
  // Version 1 (the original order): two read sweeps.
  T.version();
  T.band(0, {});
  T.term(0, 0, {}, 1, 100 * S, 0, 100 * S, true, true);
  T.band(0, {100});
  T.term(0, 0, {static_cast<int64_t>(S)}, 1, S, 0, 100 * S, true, true);
  T.band(1, {});
  T.term(0, 0, {}, 1, 100 * S, 0, 100 * S, false, true);
  T.band(1, {100});
  T.term(0, 0, {static_cast<int64_t>(S)}, 1, S, 0, 100 * S, false, true);
  iopoly_tile_table Tab = T.table();
  std::vector<VersionEstimate> E;
  EXPECT_EQ(chooseTileVersion(Tab, S, 16, &E), 1u);
  EXPECT_LT(E[0].Cost, E[1].Cost);
  EXPECT_GT(E[0].Outside, MaxModelOutside);
}

} // namespace

TEST(TileReplay, KeptWalksGiveTheSameReplays) {
  // The compiler replays the same table at many buffer sizes through one
  // ReplayWalks: every estimate must be what a replay of its own gives.
  Table T;
  T.version();
  T.band(0, {64, 64});
  T.term(0, 0, {8, 512}, 1, 8, 0, 64 * 512, /*Writes=*/true, /*Reads=*/true);
  T.term(1, 0, {512, 8}, 1, 8, 0, 64 * 512, /*Writes=*/false, /*Reads=*/true);
  sweep(T, 1, 30, 2);
  T.version(8, IOPOLY_VERSION_BANDS);
  T.band(0, {4096, 1024});
  T.term(0, 0, {static_cast<int64_t>(1024 * S), static_cast<int64_t>(S)}, 1, S, 0, 4096 * 1024 * S);
  iopoly_tile_table Tab = T.table();
  FetchCost C;
  C.Random = 10;
  C.Sequential = 1;
  C.Disks = 4;
  ReplayWalks Walks;
  for (int Pass = 0; Pass < 2; ++Pass) // the second pass finds every walk kept
    for (uint64_t Stripe : {S, 4 * S})
      for (uint64_t Frames : {2u, 8u, 16u, 40u, 200u})
        for (uint32_t V = 0; V < 2; ++V) {
          ModelReplay Alone = replayModel(Tab, V, Stripe, Frames, C, 1 << 16);
          ModelReplay Kept = replayModel(Tab, V, Stripe, Frames, C, 1 << 16, &Walks);
          EXPECT_DOUBLE_EQ(Alone.Fetches, Kept.Fetches) << V << " " << Stripe << " " << Frames;
          EXPECT_DOUBLE_EQ(Alone.Cost, Kept.Cost) << V << " " << Stripe << " " << Frames;
          EXPECT_DOUBLE_EQ(Alone.Requests, Kept.Requests) << V << " " << Stripe << " " << Frames;
          EXPECT_EQ(Alone.Need, Kept.Need);
          EXPECT_EQ(Alone.Fits, Kept.Fits);
          EXPECT_EQ(Alone.Sampled, Kept.Sampled);
          EXPECT_DOUBLE_EQ(Alone.Outside, Kept.Outside);
        }
}

TEST(TileChoice, OnlyTheVersionsAmongMayBePicked) {
  // Version 0 sweeps the data once, version 1 twice, version 2 (the
  // original order) three times: 0 runs; without it 1; without both the
  // original order.
  Table T;
  for (int Sweeps : {1, 2, 3}) {
    T.version(Sweeps == 3 ? 0 : 8, Sweeps == 3 ? 0 : IOPOLY_VERSION_BANDS);
    for (int K = 0; K < Sweeps; ++K)
      sweep(T, static_cast<uint32_t>(K), 100);
  }
  iopoly_tile_table Tab = T.table();
  bool Replayed;
  std::vector<VersionEstimate> E = estimateTileVersions(Tab, S, 16, FetchCost(), Replayed);
  ASSERT_TRUE(Replayed);
  EXPECT_EQ(pickTileVersion(Tab, S, 16, E, Replayed), 0u);
  std::vector<bool> Among{false, true, true};
  EXPECT_EQ(pickTileVersion(Tab, S, 16, E, Replayed, &Among), 1u);
  Among = {false, false, true};
  EXPECT_EQ(pickTileVersion(Tab, S, 16, E, Replayed, &Among), 2u);
}

TEST(TileChoice, NearTheCheapestTheFewestRequestsRun) {
  // Three versions and the original order, estimates given: version 1 is
  // the cheapest, version 0 within 10% of it with a fifth of its requests
  // (its price per request is what the model knows least); version 2 has
  // fewer requests still but costs 30% more.
  Table T;
  for (int V = 0; V < 4; ++V) {
    T.version(V == 3 ? 0 : 8, V == 3 ? 0 : IOPOLY_VERSION_BANDS);
    sweep(T, 0, 100);
  }
  iopoly_tile_table Tab = T.table(); // 100 stripes: 50 frames do not hold them all
  std::vector<VersionEstimate> E(4);
  for (VersionEstimate &X : E)
    X.Fits = true;
  E[0].Cost = 205, E[0].Requests = 32441;
  E[1].Cost = 201, E[1].Requests = 170101;
  E[2].Cost = 262, E[2].Requests = 9000;
  E[3].Cost = 2183, E[3].Requests = 2583667;
  EXPECT_EQ(pickTileVersion(Tab, S, 50, E, /*Replayed=*/true), 0u);
  // Beyond 10% the cheapest runs.
  E[0].Cost = 230;
  EXPECT_EQ(pickTileVersion(Tab, S, 50, E, true), 1u);
  // Never a version that does not save 10% of the original order's cost.
  E[3].Cost = 210;
  EXPECT_EQ(pickTileVersion(Tab, S, 50, E, true), 3u);
}

/// Units of 256K, 64K and 4K and the original order, with the estimates
/// given (no replay): what the choice for tasks reads.
struct TaskChoice {
  Table T;
  std::vector<VersionEstimate> E;
  TaskChoice(std::vector<uint64_t> Need, std::vector<double> Cost) {
    for (uint64_t Unit : {256u << 10, 64u << 10, 4u << 10})
      T.version(Unit);
    T.version();
    E.resize(4);
    for (size_t V = 0; V < 4; ++V) {
      E[V].Need = V < 3 ? Need[V] : 0;
      E[V].Cost = E[V].Requests = V < 3 ? Cost[V] : 100;
      E[V].Fits = true;
    }
  }
};

TEST(TileChoice, TasksGetUnitsThatSpanEveryDisk) {
  // 4 KiB stripes on 8 disks: a task of 4K units reads one disk.
  TaskChoice C({201, 57, 12}, {1.0, 1.0, 0.99});
  iopoly_tile_table Tab = C.T.table();
  uint32_t Alone = pickTileVersion(Tab, S, 432, C.E, true);
  EXPECT_EQ(Alone, 2u);
  // Two tiles of 256K do not fit half the buffer: 64K.
  EXPECT_EQ(pickTileVersionForTasks(Tab, S, 432, 8, C.E, true, Alone), 1u);
  // On one disk every unit spans them all; two of its tiles fit.
  EXPECT_EQ(pickTileVersionForTasks(Tab, S, 432, 1, C.E, true, Alone), 2u);
  // Two tiles of 64K do not fit half of 108 frames either: still the
  // units that span the disks.
  C.E[0].Fits = false;
  EXPECT_EQ(pickTileVersionForTasks(Tab, S, 108, 8, C.E, true, Alone), 1u);
}

TEST(TileChoice, TasksKeepTheOneThreadChoiceWhereTheOthersCostMore) {
  TaskChoice C({201, 57, 12}, {2.0, 2.0, 1.0});
  iopoly_tile_table Tab = C.T.table();
  EXPECT_EQ(pickTileVersionForTasks(Tab, S, 432, 8, C.E, true, 2), 2u);
  // A one-thread choice that spans the disks and of which two tiles fit.
  TaskChoice D({201, 57, 12}, {1.0, 0.5, 1.0});
  iopoly_tile_table DTab = D.T.table();
  EXPECT_EQ(pickTileVersionForTasks(DTab, S, 432, 8, D.E, true, 1), 1u);
  // The original order stays.
  EXPECT_EQ(pickTileVersionForTasks(DTab, S, 432, 8, D.E, true, 3), 3u);
}
