//===- Partitioner.cpp - Paper 4's graph and Table 1 -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "partition/Partitioner.h"

#include <algorithm>

namespace iopoly::prof {

const char *className(ChunkClass C) {
  switch (C) {
  case ChunkClass::Local: return "local";
  case ChunkClass::Duplicate: return "duplicate";
  case ChunkClass::Broadcast: return "broadcast";
  case ChunkClass::Central: return "central";
  }
  return "central";
}

bool parseClass(const std::string &S, ChunkClass &Out) {
  for (ChunkClass C : {ChunkClass::Local, ChunkClass::Duplicate, ChunkClass::Broadcast, ChunkClass::Central})
    if (S == className(C)) {
      Out = C;
      return true;
    }
  return false;
}

AccessGraph buildGraph(const std::vector<Chunk> &Chunks, uint32_t NRanks) {
  AccessGraph G;
  G.Processes = NRanks;
  G.DataNodes = static_cast<uint32_t>(Chunks.size());
  G.ByProcess.resize(NRanks);
  G.ByData.resize(Chunks.size());
  for (uint32_t D = 0; D < Chunks.size(); ++D)
    for (const Accessor &A : Chunks[D].By) {
      if (A.Rank >= NRanks)
        continue; // cannot happen for a consistent profile
      uint32_t E = static_cast<uint32_t>(G.Edges.size());
      G.Edges.push_back({A.Rank, D, static_cast<uint8_t>(A.Writes ? 1 : 0)});
      G.ByProcess[A.Rank].push_back(E);
      G.ByData[D].push_back(E);
    }
  return G;
}

ChunkClass classify(const AccessGraph &G, uint32_t D, int32_t &Home) {
  Home = -1;
  const auto &Es = G.ByData[D];
  if (Es.size() == 1) {
    Home = static_cast<int32_t>(G.Edges[Es[0]].Process);
    return ChunkClass::Local;
  }
  uint32_t Ones = 0;
  for (uint32_t E : Es)
    if (G.Edges[E].Weight) {
      ++Ones;
      Home = static_cast<int32_t>(G.Edges[E].Process);
    }
  if (Ones == 0)
    return ChunkClass::Duplicate;
  if (Ones == 1)
    return ChunkClass::Broadcast;
  Home = -1;
  return ChunkClass::Central;
}

FilePlan partitionFile(const std::string &Path, uint32_t NRanks, std::vector<Chunk> Chunks) {
  FilePlan P;
  P.Path = Path;
  P.NRanks = NRanks;
  AccessGraph G = buildGraph(Chunks, NRanks);
  P.Chunks.resize(Chunks.size());
  for (uint32_t D = 0; D < Chunks.size(); ++D) {
    PlannedChunk &PC = P.Chunks[D];
    PC.Class = classify(G, D, PC.Home);
    if (PC.Class != ChunkClass::Central)
      for (uint32_t E : G.ByData[D])
        PC.Holders.push_back(G.Edges[E].Process);
    std::sort(PC.Holders.begin(), PC.Holders.end());
    PC.C = std::move(Chunks[D]);
  }
  // One partition per process node: the data nodes it reaches that are not
  // central, ordered by the chunk's earliest timestamp (ties: file order).
  P.Partitions.resize(NRanks);
  for (uint32_t R = 0; R < NRanks; ++R) {
    std::vector<uint32_t> Mine;
    for (uint32_t E : G.ByProcess[R])
      if (P.Chunks[G.Edges[E].Data].Class != ChunkClass::Central)
        Mine.push_back(G.Edges[E].Data);
    std::sort(Mine.begin(), Mine.end(), [&](uint32_t A, uint32_t B) {
      const Chunk &X = P.Chunks[A].C, &Y = P.Chunks[B].C;
      return X.First != Y.First ? X.First < Y.First : X.Offset < Y.Offset;
    });
    uint64_t Off = 0;
    for (uint32_t D : Mine) {
      P.Partitions[R].push_back({D, Off});
      Off += P.Chunks[D].C.Length;
    }
  }
  return P;
}

} // namespace iopoly::prof
