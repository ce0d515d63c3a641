//===- ViewMap.cpp - MPI-IO file views as byte maps ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "ViewMap.h"

#include <algorithm>

namespace iopoly::prof {

ViewMap::ViewMap(uint64_t D, uint64_t E, std::vector<TypeRun> In, uint64_t X)
    : Disp(D), EtypeSize(E ? E : 1), Extent(X) {
  for (const TypeRun &R : In) {
    if (!R.Len)
      continue;
    if (!Runs.empty() && Runs.back().Disp + static_cast<int64_t>(Runs.back().Len) == R.Disp)
      Runs.back().Len += R.Len;
    else
      Runs.push_back(R);
  }
  for (const TypeRun &R : Runs) {
    Start.push_back(Size);
    Size += R.Len;
  }
  // One run that fills the whole extent from displacement 0: the tiles
  // touch, and the stream is the file from Disp on.
  Contig = Runs.size() == 1 && Runs[0].Disp == 0 && Runs[0].Len == Extent;
}

void ViewMap::map(uint64_t Pos, uint64_t N, std::vector<Piece> &Out) const {
  if (!N || !Size)
    return;
  auto Emit = [&](uint64_t F, uint64_t L, uint64_t S) {
    if (!Out.empty()) {
      Piece &B = Out.back();
      if (B.FileOff + B.Len == F && B.StreamPos + B.Len == S) {
        B.Len += L;
        return;
      }
    }
    Out.push_back({F, L, S});
  };
  if (Contig) {
    Emit(Disp + Pos, N, 0);
    return;
  }
  uint64_t Tile = Pos / Size, Q = Pos % Size;
  size_t I = std::upper_bound(Start.begin(), Start.end(), Q) - Start.begin() - 1;
  uint64_t Done = 0;
  while (Done < N) {
    const TypeRun &R = Runs[I];
    uint64_t Within = Q - Start[I];
    uint64_t Take = std::min(R.Len - Within, N - Done);
    Emit(Disp + Tile * Extent + static_cast<uint64_t>(R.Disp) + Within, Take, Done);
    Done += Take;
    Q += Take;
    if (++I == Runs.size()) {
      I = 0;
      Q = 0;
      ++Tile;
    }
  }
}

uint64_t ViewMap::fileOffset(uint64_t Pos) const {
  std::vector<Piece> P;
  map(Pos, 1, P);
  return P.empty() ? Disp : P[0].FileOff;
}

uint64_t ViewMap::streamBytesBefore(uint64_t FileOff) const {
  if (FileOff <= Disp || !Size)
    return 0;
  uint64_t Rel = FileOff - Disp;
  if (Contig)
    return Rel;
  uint64_t Tiles = Rel / Extent, Rem = Rel % Extent, N = Tiles * Size;
  for (const TypeRun &R : Runs) {
    if (R.Disp < 0 || static_cast<uint64_t>(R.Disp) >= Rem)
      continue;
    N += std::min<uint64_t>(R.Len, Rem - static_cast<uint64_t>(R.Disp));
  }
  return N;
}

} // namespace iopoly::prof
