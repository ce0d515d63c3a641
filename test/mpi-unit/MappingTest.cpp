//===- MappingTest.cpp - Paper 2's mapping on its Figs. 6-9 and 17 --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Fig. 6: A[i] = A[x] + A[i+4d] + A[i+2d], x = i % d, for i < 8d, A of 12
// data chunks of d elements. Iteration chunk c (i in [c·d, (c+1)·d), the
// paper's gamma_{c+1}) has the tag {0, c, c+2, c+4}. Fig. 7: four clients,
// two I/O nodes, one storage node. By hand (the graph of Fig. 8): chunks
// two apart share three data chunks, four apart two, any two share chunk 0;
// clustering for the two I/O nodes merges the even chunks (and, through
// chunk 0, would swallow the odd ones: load balancing then evicts the odd
// chunks back, most similar first), so one I/O node gets the even chunks
// and the other the odd ones; under each, the clients get {c, c+2} pairs:
// {0,2} {4,6} and {1,3} {5,7} (Fig. 9). Local scheduling (Fig. 15) starts
// each I/O node's first client with its chunk of fewest data chunks: the
// schedule of Fig. 17 (gamma2,gamma4 | gamma6,gamma8 | gamma1,gamma3 |
// gamma5,gamma7), up to which I/O node is numbered first.
//
//===----------------------------------------------------------------------===//
#include "mpi/Mapping.h"
#include "mpi/Topology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <tuple>

using namespace iopoly;

namespace {

constexpr int64_t D = 100; // iterations per chunk

std::vector<IterChunk> fig6() {
  std::vector<IterChunk> Ch(8);
  for (uint32_t C = 0; C < 8; ++C) {
    std::set<uint32_t> Tag{0, C, C + 2, C + 4};
    Ch[C].Tag.assign(Tag.begin(), Tag.end());
    Ch[C].Pieces = {{C * D, (C + 1) * D}};
  }
  return Ch;
}

MapTree fig7() {
  Topology T;
  EXPECT_EQ("", parseTopology(R"({"uniform": {"clients": 4, "io_nodes": 2, "storage_nodes": 1,
                                  "io_cache": "1M", "storage_cache": "1M"}})",
                              T));
  return MapTree::fromTopology(T);
}

} // namespace

TEST(Mapping, Fig9ClustersAndFig17Schedule) {
  MapOptions O;
  MapReport R;
  auto Per = clusterChunks(fig6(), fig7(), O, &R);
  ASSERT_EQ(4u, Per.size());
  using V = std::vector<size_t>;
  // Clients 0,1 are under I/O node 0, clients 2,3 under I/O node 1.
  std::set<V> Io0{Per[0], Per[1]}, Io1{Per[2], Per[3]};
  std::set<V> Even{V{0, 2}, V{4, 6}}, Odd{V{1, 3}, V{5, 7}};
  EXPECT_TRUE((Io0 == Even && Io1 == Odd) || (Io0 == Odd && Io1 == Even))
      << "clients: {" << Per[0][0] << "," << Per[0][1] << "} {" << Per[1][0] << "," << Per[1][1] << "} {" << Per[2][0]
      << "," << Per[2][1] << "} {" << Per[3][0] << "," << Per[3][1] << "}";
  // Fig. 17 orders: the first client of each I/O node starts with its chunk
  // of fewest data chunks.
  for (const V &C : Per)
    EXPECT_LT(C[0], C[1]);
  EXPECT_GE(R.Moves, 1u) << "the I/O-level clustering is unbalanced and must be corrected by eviction";
}

TEST(Mapping, TablesCoverEveryIterationOnce) {
  std::vector<IterChunk> Ch = fig6();
  for (MapKind K : {MapKind::Block, MapKind::Cyclic, MapKind::Intra, MapKind::Cache}) {
    MapOptions O;
    O.Kind = K;
    MapReport R;
    auto Per = mapIterations(Ch, 8 * D, fig7(), O, &R);
    std::vector<int> Seen(8 * D, 0);
    for (const auto &Ps : Per)
      for (const Piece &P : Ps)
        for (int64_t I = P.first; I < P.second; ++I)
          Seen[static_cast<size_t>(I)]++;
    EXPECT_TRUE(std::all_of(Seen.begin(), Seen.end(), [](int N) { return N == 1; })) << static_cast<int>(K);
    EXPECT_LE(R.Imbalance, 0.10 + 1e-9) << static_cast<int>(K);
  }
}

TEST(Mapping, CacheMappingShrinksTheSharedCachesFootprint) {
  // By hand: block gives the clients {0..5} {0,2..7} | {0,4..9} {0,6..11}:
  // 27 data chunks at L1, 8 + 9 = 17 at L2, 12 at L3. The cache mapping:
  // {0,2,4,6} {0,4,6,8,10} | {0,1,3,5,7} {0,5,7,9,11}: 19, 6 + 7 = 13, 12.
  MapOptions Block, Cache;
  Block.Kind = MapKind::Block;
  MapReport RB, RC;
  mapIterations(fig6(), 8 * D, fig7(), Block, &RB);
  mapIterations(fig6(), 8 * D, fig7(), Cache, &RC);
  EXPECT_EQ(27u, RB.FootprintL1);
  EXPECT_EQ(17u, RB.FootprintL2);
  EXPECT_EQ(12u, RB.FootprintL3);
  EXPECT_EQ(19u, RC.FootprintL1);
  EXPECT_EQ(13u, RC.FootprintL2);
  EXPECT_EQ(12u, RC.FootprintL3);
}

TEST(Mapping, BalanceSplitsAChunkWhenNoneFits) {
  // Two chunks of 900 and 100 iterations for two clients of one I/O node,
  // the small one in the middle of the large one: no whole chunk can move;
  // the large one must be split to give each about 500.
  std::vector<IterChunk> Ch(2);
  Ch[0] = {{1, 2}, {{0, 450}, {550, 1000}}};
  Ch[1] = {{3}, {{450, 550}}};
  MapOptions O;
  MapReport R;
  auto Per = mapIterations(Ch, 1000, MapTree::flat(2), O, &R);
  EXPECT_LE(R.FootprintL1, 6u);
  EXPECT_LE(R.Imbalance, 0.10 + 1e-9);
}

TEST(Mapping, SignatureNamesTreeAndRanks) {
  EXPECT_EQ("(([0][1][2][3]))", MapTree::flat(4).signature());
  EXPECT_EQ("(([0][1])([2][3]))", fig7().signature());
}

TEST(Mapping, CoarsenMergesNeighboursAndUnitesTags) {
  auto C = coarsen(fig6(), 3);
  ASSERT_LE(C.size(), 3u);
  int64_t N = 0;
  for (const IterChunk &I : C)
    N += I.size();
  EXPECT_EQ(8 * D, N);
}

TEST(Mapping, DisjointChunksAreBalancedWithinBThres) {
  // 32 chunks of 16 iterations, each with its own data chunk.
  std::vector<IterChunk> Ch(32);
  for (uint32_t C = 0; C < 32; ++C)
    Ch[C] = {{C}, {{16 * C, 16 * C + 16}}};
  for (bool Local : {false, true}) {
    MapOptions O;
    O.Local = Local;
    MapReport R;
    mapIterations(Ch, 512, fig7(), O, &R);
    EXPECT_LE(R.Imbalance, 0.10 + 1e-9) << "local " << Local;
  }
}

TEST(Mapping, MirroredRowsStayTogetherAtPaper2Scale) {
  // bench/mapping/kernels/mirror.c at 64/32/16 nodes: chunk k (rows 2k and
  // 2k+1) reads rows 2k, 2k+1, N-1-2k, N-2-2k of A and writes its own two
  // rows of C (numbered after A's). Chunks k and 255-k read the same rows;
  // once those pairs are merged, clusters share nothing, and a mapping that
  // keeps every pair on one client brings each row of A into one cache per
  // level: 512 + 512 chunks at every level. block needs 3 * 512.
  const int64_t N = 512;
  std::vector<IterChunk> Ch(N / 2);
  for (int64_t K = 0; K < N / 2; ++K) {
    std::vector<uint32_t> Tag = {static_cast<uint32_t>(2 * K), static_cast<uint32_t>(2 * K + 1),
                                 static_cast<uint32_t>(N - 2 - 2 * K), static_cast<uint32_t>(N - 1 - 2 * K),
                                 static_cast<uint32_t>(N + 2 * K), static_cast<uint32_t>(N + 2 * K + 1)};
    std::sort(Tag.begin(), Tag.end());
    Tag.erase(std::unique(Tag.begin(), Tag.end()), Tag.end());
    Ch[static_cast<size_t>(K)] = {Tag, {{2 * K, 2 * K + 2}}};
  }
  Topology T;
  ASSERT_EQ("", parseTopology(R"({"uniform": {"clients": 64, "io_nodes": 32, "storage_nodes": 16,
                                  "io_cache": "1M", "storage_cache": "1M"}})",
                              T));
  MapOptions Block, Cache;
  Block.Kind = MapKind::Block;
  MapReport RB, RC;
  mapIterations(Ch, N, MapTree::fromTopology(T), Block, &RB);
  mapIterations(Ch, N, MapTree::fromTopology(T), Cache, &RC);
  EXPECT_EQ(3u * N, RB.FootprintL2);
  EXPECT_EQ(2u * N, RC.FootprintL1);
  EXPECT_EQ(2u * N, RC.FootprintL2);
  EXPECT_EQ(2u * N, RC.FootprintL3);
  EXPECT_LE(RC.Imbalance, 0.10 + 1e-9);
}

namespace {

/// (L3, L2, L1): compared as the mapping compares cuts, nearest the disks first.
std::tuple<uint64_t, uint64_t, uint64_t> levels(const MapReport &R) {
  return {R.FootprintL3, R.FootprintL2, R.FootprintL1};
}

MapTree uniformTree(int Clients, int Io, int Storage) {
  Topology T;
  std::string J = R"({"uniform": {"clients": )" + std::to_string(Clients) + R"(, "io_nodes": )" + std::to_string(Io) +
                  R"(, "storage_nodes": )" + std::to_string(Storage) + R"(, "io_cache": "1M", "storage_cache": "1M"}})";
  EXPECT_EQ("", parseTopology(J, T));
  return MapTree::fromTopology(T);
}

} // namespace

TEST(Mapping, SharedVectorKeepsBlocksContiguous) {
  // PolyBench's gesummv: iteration chunk k reads its own rows (data chunks
  // 1 + k) and the one chunk of x every chunk reads. The dot products of
  // Fig. 5 are all alike (x), and the clustering scatters the rows; block
  // is optimal, and the cache mapping must come out as block.
  std::vector<IterChunk> Ch(64);
  for (uint32_t C = 0; C < 64; ++C)
    Ch[C] = {{0, C + 1}, {{4 * C, 4 * C + 4}}};
  for (const MapTree &Tree : {uniformTree(16, 8, 4), MapTree::flat(8)}) {
    MapOptions Block, Cache;
    Block.Kind = MapKind::Block;
    Cache.Local = false;
    MapReport RB, RC;
    auto B = mapIterations(Ch, 256, Tree, Block, &RB);
    auto C = mapIterations(Ch, 256, Tree, Cache, &RC);
    EXPECT_EQ(B, C) << Tree.signature();
    EXPECT_EQ(levels(RB), levels(RC)) << Tree.signature();
    EXPECT_EQ(0u, RC.ClusterNodes) << Tree.signature();
  }
}

TEST(Mapping, CacheNeverBringsInMoreThanBlock) {
  // Random chunk sets on random trees: rows with neighbours (stencils),
  // far partners (mirrors), shared hot chunks and random reads. Iterations
  // divide evenly among the ranks, so that block's cut is the one the
  // mapping compares with at every node.
  std::mt19937 Rng(20261206);
  std::vector<MapTree> Trees = {MapTree::flat(4), fig7(), uniformTree(8, 4, 2), uniformTree(16, 4, 2),
                                uniformTree(64, 32, 16)};
  int Wins = 0;
  for (int Case = 0; Case < 60; ++Case) {
    const MapTree &Tree = Trees[static_cast<size_t>(Case) % Trees.size()];
    int P = Tree.numRanks();
    size_t NChunks = 8 + Rng() % 120;
    uint32_t Data = static_cast<uint32_t>(NChunks + Rng() % 64);
    int64_t Per = static_cast<int64_t>(P) * (1 + Rng() % 3); // iterations per chunk, a multiple of P
    std::vector<IterChunk> Ch(NChunks);
    for (size_t C = 0; C < NChunks; ++C) {
      std::set<uint32_t> Tag{static_cast<uint32_t>(C)};
      if (Rng() % 2)
        Tag.insert(static_cast<uint32_t>(C + 1)); // the next row
      if (Rng() % 3 == 0)
        Tag.insert(static_cast<uint32_t>(NChunks - 1 - C)); // a mirrored row
      if (Rng() % 4 == 0)
        Tag.insert(Data - 1); // a hot chunk
      if (Rng() % 5 == 0)
        Tag.insert(static_cast<uint32_t>(Rng() % Data));
      Ch[C].Tag.assign(Tag.begin(), Tag.end());
      Ch[C].Pieces = {{static_cast<int64_t>(C) * Per, static_cast<int64_t>(C + 1) * Per}};
    }
    int64_t N = static_cast<int64_t>(NChunks) * Per;
    MapOptions Block, Cache;
    Block.Kind = MapKind::Block;
    MapReport RB, RC;
    mapIterations(Ch, N, Tree, Block, &RB);
    auto Table = mapIterations(Ch, N, Tree, Cache, &RC);
    EXPECT_LE(levels(RC), levels(RB)) << "case " << Case << " on " << Tree.signature();
    EXPECT_LE(RC.Imbalance, 0.10 + 1e-9) << "case " << Case;
    std::vector<int> Seen(static_cast<size_t>(N), 0);
    for (const auto &Ps : Table)
      for (const Piece &Pc : Ps)
        for (int64_t I = Pc.first; I < Pc.second; ++I)
          ++Seen[static_cast<size_t>(I)];
    EXPECT_TRUE(std::all_of(Seen.begin(), Seen.end(), [](int X) { return X == 1; })) << "case " << Case;
    Wins += levels(RC) < levels(RB);
  }
  EXPECT_GT(Wins, 10) << "the mirrored rows should give the clustering something to find";
}

TEST(Mapping, RefinementShrinksAScatteredCut) {
  // Two clients, chunks 0-3 reading data chunk 0 and 4-7 reading chunk 1,
  // interleaved in iteration order: block's cut gives each client both data
  // chunks; swaps (moves would unbalance) bring it down to one each.
  std::vector<IterChunk> Ch(8);
  for (uint32_t C = 0; C < 8; ++C)
    Ch[C] = {{C % 2}, {{10 * C, 10 * C + 10}}};
  MapOptions Block, Cache;
  Block.Kind = MapKind::Block;
  MapReport RB, RC;
  mapIterations(Ch, 80, MapTree::flat(2), Block, &RB);
  mapIterations(Ch, 80, MapTree::flat(2), Cache, &RC);
  EXPECT_EQ(4u, RB.FootprintL1);
  EXPECT_EQ(2u, RC.FootprintL1);
  EXPECT_LE(RC.Imbalance, 0.10 + 1e-9);
}
