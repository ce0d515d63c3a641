//===- Router.h - Where each byte of a planned file is served ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One rank's view of a file's plan: for a piece of an access, the chunks
// it crosses and how each part is served. Every byte has one home: the
// shared file (central chunks, bytes outside the plan, revoked chunks), the
// owner's node-local file (local chunks) or the writer's (broadcast
// chunks). Holders of duplicates and broadcast readers keep copies that are
// filled on first read (staging) or by the writer's updates. An access the
// plan did not foresee (another rank's chunk, a write to a read-only chunk)
// is still served from the byte's home, through that rank: correct, and
// counted as a mismatch.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_APPLY_ROUTER_H
#define IOPOLY_PROFILE_APPLY_ROUTER_H

#include "common/ViewMap.h"
#include "log/ProfileFormat.h"

#include "partition/Partitioner.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace iopoly::prof {

enum class Route : uint8_t {
  Shared,      ///< the shared file
  Own,         ///< my node-local file holds the newest data (I am the home)
  Copy,        ///< my node-local copy (duplicate or broadcast reader)
  Home,        ///< another rank is the home: ask it (mismatch unless a broadcast read)
  BcastWrite,  ///< a write to a broadcast chunk by a rank that is not its writer
  DupWrite,    ///< a write to a read-only (duplicate) chunk: revoke the copies
};

struct Routed {
  uint64_t FileOff = 0, Len = 0, StreamPos = 0;
  Route How = Route::Shared;
  int32_t Chunk = -1; ///< -1: outside the plan
};

class Router {
public:
  Router() = default;
  Router(Router &&) = default;
  Router &operator=(Router &&) = default;
  Router(FilePlan P, uint32_t Me);
  /// Splits \p Pc at chunk boundaries and routes each part.
  void route(IoOp Op, const Piece &Pc, std::vector<Routed> &Out) const;

  const FilePlan &plan() const { return Plan; }
  uint32_t me() const { return Me; }
  bool holds(uint32_t C) const { return LocalOff[C] != UINT64_MAX; }
  /// Where shared offset \p Off of chunk \p C lives in my local file.
  uint64_t localOffset(uint32_t C, uint64_t Off) const { return LocalOff[C] + (Off - Plan.Chunks[C].C.Offset); }
  /// Where holder \p Rank keeps shared offset \p Off of chunk \p C
  /// (kNoLocal when it holds no copy).
  uint64_t localOffsetOf(uint32_t Rank, uint32_t C, uint64_t Off) const;
  /// The chunk holding byte \p Off, or -1.
  int32_t chunkAt(uint64_t Off) const;
  const PlannedChunk &chunk(uint32_t C) const { return Plan.Chunks[C]; }
  size_t chunks() const { return Plan.Chunks.size(); }
  /// The chunk is served from the shared file from now on (a read-only
  /// chunk was written).
  void revoke(uint32_t C) { Revoked[C].store(1, std::memory_order_relaxed); }
  bool revoked(uint32_t C) const { return Revoked[C].load(std::memory_order_relaxed); }

private:
  FilePlan Plan;
  uint32_t Me = 0;
  std::vector<uint64_t> LocalOff;
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> HolderOff; ///< per chunk: (rank, local offset)
  std::unique_ptr<std::atomic<uint8_t>[]> Revoked; ///< set by the helper thread too
};

} // namespace iopoly::prof

#endif
