//===- Mapping.h - Iteration-to-rank mapping (paper 2, sections 4-5) -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Plain data in, plain data out, so that the plugin (at compile time, for
// -fplugin-arg-iopoly-topology) and libiopoly_mpi (at startup, for
// IOPOLY_TOPOLOGY) compute the same tables from the same iteration chunks:
//  - block:  contiguous blocks of iterations in rank order (the paper's
//            "original" version);
//  - cyclic: iteration k to rank k mod P;
//  - intra:  the blocks, each rank running its pieces in its own locality
//            order (greedy chain of most shared data chunks: the paper's
//            intra-processor scheme, blind to shared caches);
//  - cache:  Fig. 5: the sharing graph of the iteration chunks (edge weight:
//            common data chunks), clustered level by level down the
//            storage-cache tree (root, storage nodes, I/O nodes, clients) by
//            merging the clusters whose tag sums have the largest dot
//            product, each level load-balanced within BThres (evicting the
//            chunk most similar to the receiving cluster, splitting a chunk
//            when none fits). At every node the clusters, and block's cut
//            moved to the nearest ends of iteration chunks, are refined by
//            moves and swaps that shrink the data chunks the children's
//            caches bring in; either replaces block's own cut only if its
//            subtree brings fewer chunks into some level, and none more
//            into a level nearer the disks, by more than block's count may
//            be overstated (split chunks). So the mapping never brings in
//            more than block under its own measure. Then, with Local,
//            Fig. 15's scheduling of each client's chunks (alpha: the chunk
//            just scheduled on the previous client of the same I/O node,
//            beta: on the same client).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_MAPPING_H
#define IOPOLY_RUNTIME_MPI_MAPPING_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace iopoly {

struct Topology;

/// [first, end) of iteration numbers.
using Piece = std::pair<int64_t, int64_t>;

/// An iteration chunk: the iterations with one tag (paper 2, section 4.2).
struct IterChunk {
  std::vector<uint32_t> Tag;  ///< data chunks touched, ascending
  std::vector<Piece> Pieces;  ///< ascending, disjoint
  int64_t size() const;
};

/// The storage-cache hierarchy as the tree of Fig. 5: the root (a storage
/// node, or a dummy above several), then I/O nodes, then client nodes,
/// each client with its ranks.
struct MapTree {
  struct Node {
    std::vector<int> Children; ///< empty for clients
    std::vector<int> Ranks;    ///< clients: their ranks
  };
  std::vector<Node> Nodes; ///< Nodes[0] is the root
  static MapTree fromTopology(const Topology &T);
  /// \p Ranks ranks, each its own client, under one I/O node and one
  /// storage node (no hierarchy known).
  static MapTree flat(int Ranks);
  int numRanks() const;
  /// Per node, its height above the clients (0 for clients).
  std::vector<size_t> heights() const;
  /// The clients in tree order.
  std::vector<int> clients() const;
  /// A canonical text of the tree and its ranks: equal texts, equal tables.
  std::string signature() const;
};

enum class MapKind { Block, Cyclic, Intra, Cache };

struct MapOptions {
  MapKind Kind = MapKind::Cache;
  bool Local = true;    ///< cache: local scheduling (section 5.4)
  double BThres = 0.10; ///< tolerated imbalance, fraction of the average
  double Alpha = 0.5, Beta = 0.5;
};

/// What a mapping achieved, for remarks and statistics.
struct MapReport {
  double Imbalance = 0; ///< largest rank's iterations / average - 1
  /// Footprints: data chunks each cache must bring in at least once,
  /// summed over the caches of a level (client nodes; the nodes above
  /// them, I/O nodes; the nodes above those, storage nodes). Sharing a
  /// cache among clients that use the same data makes them smaller.
  uint64_t FootprintL1 = 0, FootprintL2 = 0, FootprintL3 = 0;
  size_t Clusters = 0, Splits = 0, Moves = 0;
  /// Moves and swaps that shrank a level's footprint (refineParts).
  size_t Refinements = 0;
  /// Tree nodes whose iterations were cut as block cuts them, by block's
  /// cut moved to chunk ends and refined, and by the refined clustering.
  size_t BlockNodes = 0, AlignedNodes = 0, ClusterNodes = 0;
};

/// Per rank, its pieces in execution order. \p Iterations: n.
std::vector<std::vector<Piece>> mapIterations(const std::vector<IterChunk> &Chunks, int64_t Iterations,
                                              const MapTree &T, const MapOptions &O, MapReport *Report = nullptr);

/// The client schedules of the cache mapping, before the split among
/// each client's ranks (for tests on the paper's figures): per client (in
/// MapTree::clients() order), the chunk indices in execution order; split
/// chunks appear once per part.
std::vector<std::vector<size_t>> clusterChunks(const std::vector<IterChunk> &Chunks, const MapTree &T,
                                               const MapOptions &O, MapReport *Report = nullptr);

/// Merges iteration chunks, neighbours in iteration order first, until at
/// most \p Max remain (a merged chunk's tag is the union): the clustering
/// is cubic in the number of chunks.
std::vector<IterChunk> coarsen(std::vector<IterChunk> Chunks, size_t Max);

} // namespace iopoly

#endif
