//===- Chunking.cpp - Unique contiguous data chunks of a file --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "partition/Chunking.h"

#include <algorithm>
#include <map>
#include <set>

namespace iopoly::prof {

const Accessor *Chunk::accessor(uint32_t Rank) const {
  auto It = std::lower_bound(By.begin(), By.end(), Rank, [](const Accessor &A, uint32_t R) { return A.Rank < R; });
  return It != By.end() && It->Rank == Rank ? &*It : nullptr;
}

namespace {
struct Event {
  uint64_t Pos;
  bool Start;
  const Access *A;
};

struct RankState {
  int Reads = 0, Writes = 0;
  std::multiset<uint64_t> Times;
};

bool sameEdges(const Chunk &A, const Chunk &B) {
  if (A.By.size() != B.By.size())
    return false;
  for (size_t I = 0; I < A.By.size(); ++I)
    if (A.By[I].Rank != B.By[I].Rank || A.By[I].Reads != B.By[I].Reads || A.By[I].Writes != B.By[I].Writes)
      return false;
  return true;
}
} // namespace

std::vector<Chunk> buildChunks(const std::vector<const std::vector<Access> *> &Lists, bool Merge) {
  std::vector<Event> Ev;
  for (const auto *L : Lists)
    for (const Access &A : *L)
      if (A.Length) {
        Ev.push_back({A.Offset, true, &A});
        Ev.push_back({A.Offset + A.Length, false, &A});
      }
  std::sort(Ev.begin(), Ev.end(), [](const Event &X, const Event &Y) { return X.Pos < Y.Pos; });

  std::vector<Chunk> Out;
  std::map<uint32_t, RankState> Active;
  size_t I = 0;
  while (I < Ev.size()) {
    uint64_t Pos = Ev[I].Pos;
    for (; I < Ev.size() && Ev[I].Pos == Pos; ++I) {
      const Access &A = *Ev[I].A;
      RankState &S = Active[A.Rank];
      int D = Ev[I].Start ? 1 : -1;
      (A.Op == IoOp::Write ? S.Writes : S.Reads) += D;
      if (Ev[I].Start)
        S.Times.insert(A.Time);
      else
        S.Times.erase(S.Times.find(A.Time));
      if (!S.Reads && !S.Writes)
        Active.erase(A.Rank);
    }
    if (I == Ev.size() || Active.empty())
      continue;
    Chunk C;
    C.Offset = Pos;
    C.Length = Ev[I].Pos - Pos;
    for (auto &[Rank, S] : Active) {
      Accessor A;
      A.Rank = Rank;
      A.Reads = S.Reads > 0;
      A.Writes = S.Writes > 0;
      A.First = *S.Times.begin();
      C.First = std::min(C.First, A.First);
      C.By.push_back(A);
    }
    if (Merge && !Out.empty() && Out.back().end() == C.Offset && sameEdges(Out.back(), C)) {
      Chunk &B = Out.back();
      B.Length += C.Length;
      B.First = std::min(B.First, C.First);
      for (size_t K = 0; K < B.By.size(); ++K)
        B.By[K].First = std::min(B.By[K].First, C.By[K].First);
    } else {
      Out.push_back(std::move(C));
    }
  }

  // Calls and bytes per edge (for the report): each access against the
  // chunks it overlaps.
  for (const auto *L : Lists)
    for (const Access &A : *L) {
      uint64_t Lo = A.Offset, Hi = A.Offset + A.Length;
      auto It = std::upper_bound(Out.begin(), Out.end(), Lo, [](uint64_t P, const Chunk &C) { return P < C.end(); });
      for (; It != Out.end() && It->Offset < Hi; ++It) {
        auto Acc = std::lower_bound(It->By.begin(), It->By.end(), A.Rank,
                                    [](const Accessor &X, uint32_t R) { return X.Rank < R; });
        if (Acc == It->By.end() || Acc->Rank != A.Rank)
          continue;
        Acc->Accesses += 1;
        Acc->Bytes += std::min(Hi, It->end()) - std::max(Lo, It->Offset);
      }
    }
  return Out;
}

} // namespace iopoly::prof
