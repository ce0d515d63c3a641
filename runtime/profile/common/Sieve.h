//===- Sieve.h - Node-local reads of one call in a few sweeps ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A call's pieces that are node-local are read in sweeps over the local
// file, as ROMIO's data sieving does: sorted by local offset, pieces are
// grouped while the gap to the next is at most kSieveGap and the group
// spans at most kSieveSpan; a group is one read. Writes are merged only
// when consecutive pieces of a call follow each other exactly in the local
// file (one write each run). The partition layer reads and writes this way
// and the cluster model charges this way: one rule, one place.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_COMMON_SIEVE_H
#define IOPOLY_PROFILE_COMMON_SIEVE_H

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace iopoly::prof {

constexpr uint64_t kSieveGap = 256u << 10;
constexpr uint64_t kSieveSpan = 8u << 20;

struct SievePiece {
  uint64_t Local = 0, Len = 0;
  size_t Index = 0; ///< the caller's
};

/// Sorts \p P by local offset and returns the groups as [first, last).
inline std::vector<std::pair<size_t, size_t>> sieve(std::vector<SievePiece> &P) {
  std::sort(P.begin(), P.end(), [](const SievePiece &A, const SievePiece &B) {
    return A.Local != B.Local ? A.Local < B.Local : A.Index < B.Index;
  });
  std::vector<std::pair<size_t, size_t>> G;
  for (size_t I = 0; I < P.size();) {
    size_t J = I + 1;
    uint64_t End = P[I].Local + P[I].Len;
    while (J < P.size() && P[J].Local <= End + kSieveGap &&
           std::max(End, P[J].Local + P[J].Len) - P[I].Local <= kSieveSpan) {
      End = std::max(End, P[J].Local + P[J].Len);
      ++J;
    }
    G.push_back({I, J});
    I = J;
  }
  return G;
}

} // namespace iopoly::prof

#endif
