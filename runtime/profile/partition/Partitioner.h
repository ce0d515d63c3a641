//===- Partitioner.h - Paper 4's graph and Table 1 ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 4, section 2.2 and Fig. 2. A bipartite graph joins a process node
// per rank to a data node per chunk; an edge weighs 1 when the process
// writes the chunk (or reads and writes it) and 0 when it only reads it;
// a data node's weight is its number of edges. Table 1 places each chunk:
//
//   data node weight 1                   -> the process's local disk
//   weight > 1, all edges 0 (read only)  -> duplicated on every reader
//   weight > 1, exactly one edge 1       -> broadcast: kept by the writer,
//                                           updates sent to the readers
//   otherwise (several writers)          -> central (the shared file)
//
// Walking the graph gives one partition per process node (plus the central
// one, the shared file itself); each partition's chunks are ordered by
// their earliest timestamp, which is their order in the node-local file.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_PARTITION_PARTITIONER_H
#define IOPOLY_PROFILE_PARTITION_PARTITIONER_H

#include "partition/Chunking.h"

#include <string>
#include <vector>

namespace iopoly::prof {

enum class ChunkClass : uint8_t { Local, Duplicate, Broadcast, Central };
const char *className(ChunkClass C);
bool parseClass(const std::string &S, ChunkClass &Out);

/// The graph of section 2.2.
struct AccessGraph {
  struct Edge {
    uint32_t Process, Data;
    uint8_t Weight; ///< 1 write (or read+write), 0 read only
  };
  uint32_t Processes = 0;
  uint32_t DataNodes = 0;
  std::vector<Edge> Edges;
  std::vector<std::vector<uint32_t>> ByProcess; ///< edge indices per process node
  std::vector<std::vector<uint32_t>> ByData;    ///< edge indices per data node
  uint32_t dataWeight(uint32_t D) const { return static_cast<uint32_t>(ByData[D].size()); }
};

AccessGraph buildGraph(const std::vector<Chunk> &Chunks, uint32_t NRanks);

/// Table 1 for data node \p D; \p Home becomes the owner (local) or the
/// single writer (broadcast), -1 otherwise.
ChunkClass classify(const AccessGraph &G, uint32_t D, int32_t &Home);

struct PlannedChunk {
  Chunk C;
  ChunkClass Class = ChunkClass::Central;
  int32_t Home = -1;             ///< owner (local) or writer (broadcast)
  std::vector<uint32_t> Holders; ///< ranks that keep a node-local copy
};

struct PartitionEntry {
  uint32_t Chunk = 0;       ///< index into FilePlan::Chunks
  uint64_t LocalOffset = 0; ///< where it sits in the rank's local file
};

struct FilePlan {
  std::string Path;
  uint32_t NRanks = 0;
  std::vector<PlannedChunk> Chunks;                    ///< file order
  std::vector<std::vector<PartitionEntry>> Partitions; ///< per rank, by earliest timestamp
};

/// Builds the graph of \p Chunks, classifies every data node and makes the
/// per-process partitions.
FilePlan partitionFile(const std::string &Path, uint32_t NRanks, std::vector<Chunk> Chunks);

} // namespace iopoly::prof

#endif
