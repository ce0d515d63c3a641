//===- MappingParts.h - Items and parts of the mapping's clustering -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to Mapping.cpp and MappingRefine.cpp: the pieces of iteration
// chunks being placed, and the two ways of cutting them among the children
// of a tree node that the cache mapping compares.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_MAPPINGPARTS_H
#define IOPOLY_RUNTIME_MPI_MAPPINGPARTS_H

#include "mpi/Mapping.h"

namespace iopoly {
namespace mapping {

/// A part of an iteration chunk being placed.
struct Item {
  size_t Chunk;
  std::vector<Piece> Pieces;
  int64_t Size;
  int64_t first() const { return Pieces.front().first; }
};

using Parts = std::vector<std::vector<Item>>;

int64_t sizeOf(const std::vector<Item> &C);

/// |A ∩ B| of two ascending tags: the edge weight of the sharing graph.
int64_t common(const std::vector<uint32_t> &A, const std::vector<uint32_t> &B);

/// Cuts \p M iterations off the end of \p I into a new item.
Item splitOff(Item &I, int64_t M);

/// The number of distinct data chunks \p Items touch.
uint64_t footprint(const std::vector<IterChunk> &Chunks, const std::vector<Item> &Items);

/// Size limits of the parts, in iterations (BThres around each share).
struct PartLimits {
  std::vector<double> Lower, Upper;
};

/// The iterations of \p Items in ascending order, cut into consecutive
/// runs of Weights[K] shares: what block does at this node of the tree.
/// With \p Align, each cut moves to the nearest end of a piece of an
/// iteration chunk that keeps the parts within their limits.
Parts contiguousParts(const std::vector<Item> &Items, const std::vector<double> &Weights,
                      const PartLimits *Align = nullptr);

/// Moves and swaps of whole items between parts while each shrinks the sum
/// of the parts' footprints (the data chunks the children's caches must
/// bring in) and keeps every part within its limits. Returns how many it
/// made.
size_t refineParts(const std::vector<IterChunk> &Chunks, Parts &P, const PartLimits &L);

} // namespace mapping
} // namespace iopoly

#endif
