//===- Policy.cpp - Which ready locality set a free thread runs next ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "sched/Policy.h"

namespace iopoly::sched {

Status parsePolicy(const std::string &Text, Policy &Out) {
  if (Text == "g" || Text == "G") {
    Out = Policy::Global;
    return {};
  }
  if (Text == "naive") {
    Out = Policy::Naive;
    return {};
  }
  return Status::error(ErrorCode::Config, "'" + Text + "' is not g or naive");
}

const char *policyName(Policy P) { return P == Policy::Global ? "g" : "naive"; }

uint32_t pickGlobal(const TaskGraph &Graph, const std::vector<uint32_t> &Ready, const DiskMap &G) {
  // First choice: inside G, using most of it. Else: nearest to G.
  int64_t Inside = -1, Nearest = -1;
  unsigned MostUsed = 0, Closest = ~0u;
  for (uint32_t T : Ready) {
    const DiskMap &M = Graph.Tasks[T].Disks;
    if (M.subsetOf(G)) {
      unsigned Used = M.count();
      if (Inside < 0 || Used > MostUsed || (Used == MostUsed && T < Inside)) {
        Inside = T;
        MostUsed = Used;
      }
    } else if (Inside < 0) {
      unsigned H = M.hamming(G);
      if (Nearest < 0 || H < Closest || (H == Closest && T < Nearest)) {
        Nearest = T;
        Closest = H;
      }
    }
  }
  return static_cast<uint32_t>(Inside >= 0 ? Inside : Nearest);
}

uint32_t pickOwnOrder(const TaskGraph &Graph, const std::vector<uint32_t> &Ready, const DiskMap &Last) {
  int64_t Best = -1;
  unsigned Closest = ~0u;
  for (uint32_t T : Ready) {
    // Before its first set a thread starts where its share starts.
    unsigned H = Last.empty() ? 0 : Graph.Tasks[T].Disks.hamming(Last);
    if (Best < 0 || H < Closest || (H == Closest && T < Best)) {
      Best = T;
      Closest = H;
    }
  }
  return static_cast<uint32_t>(Best);
}

std::vector<unsigned> contiguousShares(size_t NumSets, unsigned Threads) {
  std::vector<unsigned> Owner(NumSets);
  if (!Threads)
    Threads = 1;
  for (size_t T = 0; T < NumSets; ++T)
    Owner[T] = static_cast<unsigned>(T * Threads / NumSets);
  return Owner;
}

void GlobalDiskMap::start(const DiskMap &M) {
  for (size_t W = 0; W < M.numWords(); ++W)
    for (uint64_t Bits = M.word(W); Bits; Bits &= Bits - 1) {
      unsigned D = static_cast<unsigned>(W * 64 + __builtin_ctzll(Bits));
      if (Users.size() <= D)
        Users.resize(D + 1, 0);
      if (!Users[D]++)
        Map.set(D);
    }
}

void GlobalDiskMap::finish(const DiskMap &M) {
  std::vector<uint64_t> Words(Map.numWords(), 0);
  for (size_t W = 0; W < M.numWords(); ++W)
    for (uint64_t Bits = M.word(W); Bits; Bits &= Bits - 1) {
      unsigned D = static_cast<unsigned>(W * 64 + __builtin_ctzll(Bits));
      if (D < Users.size() && Users[D])
        --Users[D];
    }
  for (unsigned D = 0; D < Users.size(); ++D)
    if (Users[D])
      Words[D / 64] |= uint64_t(1) << (D % 64);
  Map = DiskMap(std::move(Words));
}

} // namespace iopoly::sched
