//===- Router.cpp - Where each byte of a planned file is served ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "apply/Router.h"

#include <algorithm>

namespace iopoly::prof {

Router::Router(FilePlan P, uint32_t M) : Plan(std::move(P)), Me(M) {
  LocalOff.assign(Plan.Chunks.size(), UINT64_MAX);
  Revoked.reset(new std::atomic<uint8_t>[Plan.Chunks.size() + 1]());
  if (Me < Plan.Partitions.size())
    for (const PartitionEntry &E : Plan.Partitions[Me])
      LocalOff[E.Chunk] = E.LocalOffset;
  HolderOff.resize(Plan.Chunks.size());
  for (uint32_t R = 0; R < Plan.Partitions.size(); ++R)
    for (const PartitionEntry &E : Plan.Partitions[R])
      HolderOff[E.Chunk].push_back({R, E.LocalOffset});
}

uint64_t Router::localOffsetOf(uint32_t Rank, uint32_t C, uint64_t Off) const {
  for (const auto &[R, L] : HolderOff[C])
    if (R == Rank)
      return L + (Off - Plan.Chunks[C].C.Offset);
  return kNoLocal;
}

int32_t Router::chunkAt(uint64_t Off) const {
  auto It = std::upper_bound(Plan.Chunks.begin(), Plan.Chunks.end(), Off,
                             [](uint64_t O, const PlannedChunk &C) { return O < C.C.end(); });
  if (It == Plan.Chunks.end() || It->C.Offset > Off)
    return -1;
  return static_cast<int32_t>(It - Plan.Chunks.begin());
}

void Router::route(IoOp Op, const Piece &Pc, std::vector<Routed> &Out) const {
  uint64_t Pos = Pc.FileOff, End = Pc.FileOff + Pc.Len;
  auto It = std::upper_bound(Plan.Chunks.begin(), Plan.Chunks.end(), Pos,
                             [](uint64_t O, const PlannedChunk &C) { return O < C.C.end(); });
  auto Emit = [&](uint64_t Lo, uint64_t Hi, Route How, int32_t C) {
    if (Lo >= Hi)
      return;
    if (!Out.empty()) {
      Routed &B = Out.back();
      if (B.How == How && B.Chunk == C && B.FileOff + B.Len == Lo && B.StreamPos + B.Len == Pc.StreamPos + (Lo - Pc.FileOff)) {
        B.Len += Hi - Lo;
        return;
      }
    }
    Out.push_back({Lo, Hi - Lo, Pc.StreamPos + (Lo - Pc.FileOff), How, C});
  };
  while (Pos < End) {
    if (It == Plan.Chunks.end() || It->C.Offset >= End) {
      Emit(Pos, End, Route::Shared, -1);
      break;
    }
    if (It->C.Offset > Pos) { // a gap before the chunk
      Emit(Pos, It->C.Offset, Route::Shared, -1);
      Pos = It->C.Offset;
    }
    uint32_t C = static_cast<uint32_t>(It - Plan.Chunks.begin());
    uint64_t Hi = std::min(End, It->C.end());
    const PlannedChunk &PC = *It;
    bool Write = Op == IoOp::Write;
    bool Holder = LocalOff[C] != UINT64_MAX;
    bool IsHome = PC.Home == static_cast<int32_t>(Me);
    Route How = Route::Shared;
    if (revoked(C) || PC.Class == ChunkClass::Central)
      How = Route::Shared;
    else if (PC.Class == ChunkClass::Local)
      How = IsHome ? Route::Own : Route::Home;
    else if (PC.Class == ChunkClass::Broadcast)
      How = IsHome ? Route::Own : Write ? Route::BcastWrite : Holder ? Route::Copy : Route::Home;
    else // duplicate
      How = Write ? Route::DupWrite : Holder ? Route::Copy : Route::Shared;
    Emit(Pos, Hi, How, static_cast<int32_t>(C));
    Pos = Hi;
    ++It;
  }
}

} // namespace iopoly::prof
