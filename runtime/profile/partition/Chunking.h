//===- Chunking.h - Unique contiguous data chunks of a file ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 4, section 2.2: "a data node for each unique contiguous data
// chunk". The byte ranges of all accesses are cut at every access boundary;
// each piece knows which ranks read and wrote it and when first. Adjacent
// pieces with the same accessors and the same read/write edges are merged,
// so a rank's contiguous region is one chunk however many calls wrote it.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_PARTITION_CHUNKING_H
#define IOPOLY_PROFILE_PARTITION_CHUNKING_H

#include "partition/Access.h"

#include <cstdint>
#include <vector>

namespace iopoly::prof {

/// One process's edge to a data chunk.
struct Accessor {
  uint32_t Rank = 0;
  bool Reads = false, Writes = false;
  uint64_t First = UINT64_MAX; ///< earliest access time (ns)
  uint64_t Accesses = 0;       ///< calls that touched the chunk
  uint64_t Bytes = 0;          ///< bytes of the chunk they moved
};

struct Chunk {
  uint64_t Offset = 0, Length = 0;
  std::vector<Accessor> By; ///< sorted by rank
  uint64_t First = UINT64_MAX; ///< earliest access by anyone
  uint64_t end() const { return Offset + Length; }
  const Accessor *accessor(uint32_t Rank) const;
};

/// Chunks of the union of \p Lists (several runs at one rank count), in
/// file order. \p Merge merges adjacent chunks with equal edges.
std::vector<Chunk> buildChunks(const std::vector<const std::vector<Access> *> &Lists, bool Merge = true);

} // namespace iopoly::prof

#endif
