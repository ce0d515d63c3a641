//===- MappingParts.cpp - Cutting and refining the mapping's parts --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The agglomerative clustering of paper 2 (Fig. 5) merges by dot products
// of tag sums, a proxy: when every iteration chunk reads one small shared
// array (a vector x, the first rows of a matrix), every pair looks alike
// and the clusters come out scattered, so that block's contiguous runs
// share more. What a cache level pays is its footprint, the distinct data
// chunks its children bring in; the refinement below shrinks exactly that,
// by moves and swaps of whole items (Kernighan-Lin style, balance kept),
// and contiguousParts gives the node block's own cut to compare with.
//
//===----------------------------------------------------------------------===//
#include "mpi/MappingParts.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace iopoly {
namespace mapping {

int64_t sizeOf(const std::vector<Item> &C) {
  int64_t N = 0;
  for (const Item &I : C)
    N += I.Size;
  return N;
}

int64_t common(const std::vector<uint32_t> &A, const std::vector<uint32_t> &B) {
  int64_t N = 0;
  for (size_t I = 0, J = 0; I < A.size() && J < B.size();) {
    if (A[I] < B[J])
      ++I;
    else if (B[J] < A[I])
      ++J;
    else
      ++N, ++I, ++J;
  }
  return N;
}

Item splitOff(Item &I, int64_t M) {
  Item Out{I.Chunk, {}, 0};
  while (M > 0 && !I.Pieces.empty()) {
    Piece &P = I.Pieces.back();
    int64_t Take = std::min(M, P.second - P.first);
    Out.Pieces.insert(Out.Pieces.begin(), {P.second - Take, P.second});
    P.second -= Take;
    if (P.first == P.second)
      I.Pieces.pop_back();
    M -= Take;
    Out.Size += Take;
    I.Size -= Take;
  }
  return Out;
}

uint64_t footprint(const std::vector<IterChunk> &Chunks, const std::vector<Item> &Items) {
  std::vector<uint32_t> All;
  for (const Item &I : Items)
    All.insert(All.end(), Chunks[I.Chunk].Tag.begin(), Chunks[I.Chunk].Tag.end());
  std::sort(All.begin(), All.end());
  return static_cast<uint64_t>(std::unique(All.begin(), All.end()) - All.begin());
}

Parts contiguousParts(const std::vector<Item> &Items, const std::vector<double> &Weights, const PartLimits *Align) {
  std::vector<std::pair<Piece, size_t>> All;
  int64_t Total = 0;
  for (const Item &I : Items)
    for (const Piece &P : I.Pieces) {
      All.push_back({P, I.Chunk});
      Total += P.second - P.first;
    }
  std::sort(All.begin(), All.end());
  double W = 0;
  for (double X : Weights)
    W += X;
  // Where part K ends, in iterations given so far: the same cut as block's
  // Iterations * (ranks so far) / ranks.
  std::vector<int64_t> End;
  double Cum = 0;
  for (double X : Weights) {
    Cum += X;
    End.push_back(static_cast<int64_t>(std::floor(static_cast<long double>(Total) * Cum / W + 1e-9L)));
  }
  End.back() = Total;
  if (Align) {
    // Where the pieces end, in iterations given so far.
    std::vector<int64_t> Ends;
    int64_t Sum = 0;
    for (const auto &[P, C] : All)
      Ends.push_back(Sum += P.second - P.first);
    int64_t Prev = 0;
    for (size_t K = 0; K + 1 < End.size(); ++K) {
      auto It = std::lower_bound(Ends.begin(), Ends.end(), End[K]);
      int64_t Best = End[K], BestDist = INT64_MAX;
      for (auto J : {It, It == Ends.begin() ? It : std::prev(It)}) {
        if (J == Ends.end())
          continue;
        double Size = static_cast<double>(*J - Prev);
        int64_t Dist = std::llabs(*J - End[K]);
        if (*J >= Prev && Size >= Align->Lower[K] && Size <= Align->Upper[K] && Dist < BestDist)
          Best = *J, BestDist = Dist;
      }
      End[K] = Prev = Best;
    }
    // The last part takes what is left: if that breaks its limits, block's
    // exact cut instead.
    for (size_t K = 0; K < End.size(); ++K) {
      double Size = static_cast<double>(End[K] - (K ? End[K - 1] : 0));
      if (Size < Align->Lower[K] || Size > Align->Upper[K])
        return contiguousParts(Items, Weights, nullptr);
    }
  }
  Parts Out(Weights.size());
  std::vector<std::map<size_t, size_t>> ItemOf(Weights.size()); // chunk -> its item in the part
  size_t K = 0;
  int64_t Given = 0;
  for (auto [P, C] : All) {
    while (P.first < P.second) {
      while (K + 1 < Out.size() && Given >= End[K])
        ++K;
      int64_t Take = K + 1 == Out.size() ? P.second - P.first : std::min(P.second - P.first, End[K] - Given);
      auto [It, New] = ItemOf[K].emplace(C, Out[K].size());
      if (New)
        Out[K].push_back({C, {}, 0});
      Item &Dst = Out[K][It->second];
      if (!Dst.Pieces.empty() && Dst.Pieces.back().second == P.first)
        Dst.Pieces.back().second += Take;
      else
        Dst.Pieces.push_back({P.first, P.first + Take});
      Dst.Size += Take;
      P.first += Take;
      Given += Take;
    }
  }
  return Out;
}

namespace {

/// Per part, how many of its items touch each data chunk (numbered
/// densely): a part's footprint is the number of non-zero counts.
class Counts {
public:
  Counts(const std::vector<IterChunk> &Chunks, const Parts &P) : Dense(Chunks.size()) {
    std::vector<uint32_t> All;
    for (const auto &Part : P)
      for (const Item &I : Part)
        All.insert(All.end(), Chunks[I.Chunk].Tag.begin(), Chunks[I.Chunk].Tag.end());
    std::sort(All.begin(), All.end());
    All.erase(std::unique(All.begin(), All.end()), All.end());
    for (const auto &Part : P)
      for (const Item &I : Part)
        if (Dense[I.Chunk].empty())
          for (uint32_t T : Chunks[I.Chunk].Tag)
            Dense[I.Chunk].push_back(
                static_cast<uint32_t>(std::lower_bound(All.begin(), All.end(), T) - All.begin()));
    N.assign(P.size(), std::vector<int>(All.size(), 0));
    for (size_t K = 0; K < P.size(); ++K)
      for (const Item &I : P[K])
        add(K, I);
  }
  /// Footprint change of part K on adding (removing) an item.
  int64_t add(size_t K, const Item &I) {
    int64_t D = 0;
    for (uint32_t T : Dense[I.Chunk])
      D += N[K][T]++ == 0;
    return D;
  }
  int64_t remove(size_t K, const Item &I) {
    int64_t D = 0;
    for (uint32_t T : Dense[I.Chunk])
      D -= --N[K][T] == 0;
    return D;
  }
  /// The data chunks that would leave part K with the item.
  int64_t alone(size_t K, const Item &I) const {
    int64_t D = 0;
    for (uint32_t T : Dense[I.Chunk])
      D += N[K][T] == 1;
    return D;
  }
  /// The data chunks the item would bring into part K.
  int64_t fresh(size_t K, const Item &I) const {
    int64_t D = 0;
    for (uint32_t T : Dense[I.Chunk])
      D += N[K][T] == 0;
    return D;
  }

private:
  std::vector<std::vector<uint32_t>> Dense; ///< per chunk, its dense tag
  std::vector<std::vector<int>> N;
};

} // namespace

size_t refineParts(const std::vector<IterChunk> &Chunks, Parts &P, const PartLimits &L) {
  size_t K = P.size(), Made = 0;
  if (K < 2)
    return 0;
  Counts C(Chunks, P);
  std::vector<double> Sz(K);
  for (size_t A = 0; A < K; ++A)
    Sz[A] = static_cast<double>(sizeOf(P[A]));
  // A part may not leave its limits, nor move further out of them.
  auto Fits = [&](size_t A, double New) {
    return New <= std::max(L.Upper[A], Sz[A]) && New >= std::min(L.Lower[A], Sz[A]);
  };
  for (int Pass = 0; Pass < 8; ++Pass) {
    size_t Before = Made;
    // Moves: the item to the part where it brings in fewest new chunks.
    for (size_t A = 0; A < K; ++A)
      for (size_t I = 0; I < P[A].size();) {
        const Item &It = P[A][I];
        double S = static_cast<double>(It.Size);
        size_t To = K;
        int64_t BestD = 0, Gain = C.alone(A, It);
        if (Gain > 0 && Fits(A, Sz[A] - S))
          for (size_t Q = 0; Q < K; ++Q)
            if (Q != A && Fits(Q, Sz[Q] + S))
              if (int64_t D = C.fresh(Q, It) - Gain; D < BestD)
                BestD = D, To = Q;
        if (To == K) {
          ++I;
          continue;
        }
        C.remove(A, It);
        C.add(To, It);
        Sz[A] -= S, Sz[To] += S;
        P[To].push_back(std::move(P[A][I]));
        P[A].erase(P[A].begin() + static_cast<long>(I));
        ++Made;
      }
    // Swaps, where balance forbids a move. Only an item that takes chunks
    // with it out of its part can make a swap pay.
    for (size_t A = 0; A < K; ++A)
      for (size_t B = A + 1; B < K; ++B)
        for (size_t I = 0; I < P[A].size(); ++I) {
          if (C.alone(A, P[A][I]) == 0)
            continue;
          for (size_t J = 0; J < P[B].size(); ++J) {
            Item &X = P[A][I], &Y = P[B][J];
            double D = static_cast<double>(Y.Size - X.Size);
            if (X.Chunk == Y.Chunk || !Fits(A, Sz[A] + D) || !Fits(B, Sz[B] - D))
              continue;
            int64_t Delta = C.remove(A, X) + C.remove(B, Y) + C.add(A, Y) + C.add(B, X);
            if (Delta < 0) {
              std::swap(X, Y);
              Sz[A] += D, Sz[B] -= D;
              ++Made;
              if (C.alone(A, P[A][I]) == 0)
                break;
              continue;
            }
            C.remove(A, Y), C.remove(B, X), C.add(A, X), C.add(B, Y);
          }
        }
    if (Made == Before)
      break;
  }
  return Made;
}

} // namespace mapping
} // namespace iopoly
