//===- LayoutChoice.cpp - Scoring the file layouts of one array ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/LayoutChoice.h"

#include <algorithm>
#include <numeric>

namespace iopoly {

const char *weightSourceText(WeightSource S) {
  switch (S) {
  case WeightSource::TripProduct:
    return "trip product";
  case WeightSource::DomainCount:
    return "exact domain count";
  case WeightSource::DomainParams:
    return "exact domain count with parameters at representative values";
  case WeightSource::DomainBox:
    return "domain box hull";
  case WeightSource::Profile:
    return "profile";
  }
  return "?";
}

std::string permString(const std::vector<unsigned> &Perm) {
  std::string S;
  for (size_t I = 0; I < Perm.size(); ++I)
    S += (I ? "," : "") + std::to_string(Perm[I]);
  return S;
}

/// The access's preferred layout (empty: "other") and its fast dimension
/// (-1: none varies).
static std::vector<unsigned> preference(const LayoutAccess &A, int &Fast) {
  unsigned N = A.Depth.size();
  unsigned Max = 0;
  for (unsigned D : A.Depth)
    Max = std::max(Max, D);
  Fast = -1;
  if (Max == 0)
    return {};
  unsigned AtMax = 0;
  for (unsigned K = 0; K < N; ++K)
    if (A.Depth[K] == Max) {
      ++AtMax;
      Fast = static_cast<int>(K);
    }
  if (AtMax > 1) {
    Fast = -2; // a diagonal: no dimension is stride-1 under any layout
    return {};
  }
  std::vector<unsigned> P(N);
  std::iota(P.begin(), P.end(), 0u);
  std::stable_sort(P.begin(), P.end(), [&](unsigned X, unsigned Y) { return A.Depth[X] < A.Depth[Y]; });
  // Varying dimensions at the same depth have no order between them.
  for (unsigned K = 1; K < N; ++K)
    if (A.Depth[P[K]] != 0 && A.Depth[P[K]] == A.Depth[P[K - 1]])
      return {};
  return P;
}

LayoutChoice chooseLayout(unsigned NDims, const std::vector<LayoutAccess> &Accesses, double MinRatio) {
  LayoutChoice C;
  std::vector<unsigned> P(NDims);
  std::iota(P.begin(), P.end(), 0u);
  do
    C.Candidates.push_back({P, 0, 0, 0});
  while (std::next_permutation(P.begin(), P.end()));
  for (const LayoutAccess &A : Accesses) {
    if (A.Depth.size() != NDims)
      continue;
    int Fast;
    std::vector<unsigned> Pref = preference(A, Fast);
    if (Fast == -1)
      continue; // loop-invariant: the same stripe whatever the layout
    double W = A.Weight / std::max(1.0, A.Repeats);
    if (Pref.empty())
      C.Other += W;
    for (LayoutScore &S : C.Candidates) {
      if (Fast >= 0 && S.Perm.back() == static_cast<unsigned>(Fast))
        S.Along += W;
      else
        S.Against += W;
      if (S.Perm == Pref)
        S.Preferred += W;
    }
  }
  for (unsigned I = 1; I < C.Candidates.size(); ++I) {
    const LayoutScore &S = C.Candidates[I], &B = C.Candidates[C.Chosen];
    if (S.Along > B.Along || (S.Along == B.Along && S.Preferred > B.Preferred))
      C.Chosen = I;
  }
  // The weights are estimates of the original order (the mode's schedule
  // may interchange loops), and a file layout outlives the run: another
  // layout replaces row-major only with a clear majority.
  if (C.Candidates[C.Chosen].Along < MinRatio * C.Candidates[0].Along) {
    C.NearTie = C.Chosen != 0;
    C.Chosen = 0;
  }
  return C;
}

} // namespace iopoly
