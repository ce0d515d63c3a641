//===- Pattern.cpp - Access sequences as functions of rank and size --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "partition/Pattern.h"

#include <algorithm>
#include <numeric>

namespace iopoly::prof {

using i128 = __int128;

bool Coef::at(uint32_t P, int64_t &Out) const {
  if (P == 0 || D <= 0)
    return false;
  i128 Num = static_cast<i128>(N0) * P + N1, Den = static_cast<i128>(D) * P;
  if (Num % Den != 0)
    return false;
  i128 V = Num / Den;
  if (V > INT64_MAX || V < INT64_MIN)
    return false;
  Out = static_cast<int64_t>(V);
  return true;
}

bool Coef::operator==(const Coef &O) const {
  return static_cast<i128>(N0) * O.D == static_cast<i128>(O.N0) * D &&
         static_cast<i128>(N1) * O.D == static_cast<i128>(O.N1) * D;
}

std::string Coef::str() const {
  auto LL = [](int64_t V) { return static_cast<long long>(V); };
  if (N1 == 0)
    return D == 1 ? strf("%lld", LL(N0)) : strf("%lld/%lld", LL(N0), LL(D));
  std::string S = N0 ? strf("%lld + %lld/P", LL(N0), LL(N1)) : strf("%lld/P", LL(N1));
  return D == 1 ? S : strf("(%s)/%lld", S.c_str(), LL(D));
}

namespace {


Coef reduce(i128 N0, i128 N1, i128 D) {
  if (D < 0) {
    N0 = -N0;
    N1 = -N1;
    D = -D;
  }
  auto G = [](i128 A, i128 B) {
    if (A < 0) A = -A;
    if (B < 0) B = -B;
    while (B) {
      i128 T = A % B;
      A = B;
      B = T;
    }
    return A;
  };
  i128 Gd = G(G(N0, N1), D);
  if (Gd > 1) {
    N0 /= Gd;
    N1 /= Gd;
    D /= Gd;
  }
  return {static_cast<int64_t>(N0), static_cast<int64_t>(N1), static_cast<int64_t>(D)};
}

/// The coefficient through (P1, V1) and (P2, V2): constant when equal,
/// else c0 + c1/P.
Coef through(uint32_t P1, int64_t V1, uint32_t P2, int64_t V2) {
  if (V1 == V2)
    return Coef::constant(V1);
  i128 D = static_cast<i128>(P2) - P1;
  i128 N0 = static_cast<i128>(V2) * P2 - static_cast<i128>(V1) * P1;
  i128 N1 = (static_cast<i128>(V1) - V2) * P1 * P2;
  return reduce(N0, N1, D);
}

struct Step {
  IoOp Op;
  int64_t A, B, L, LR;
  uint64_t T;
};

} // namespace

uint64_t RankModel::accessesPerRank() const {
  uint64_t N = 0;
  for (const Segment &S : Segments)
    N += S.Count;
  return N;
}

Error fitRun(const RunAccesses &R, RankModel &Out) {
  uint32_t P = R.NRanks;
  if (P < 2)
    return Error(Errc::Mismatch, "profiled on one rank: how accesses move with the rank is unknown");
  std::vector<std::vector<const Access *>> Seq(P);
  for (const Access &A : R.List)
    if (A.Rank < P)
      Seq[A.Rank].push_back(&A);
  size_t K = Seq[0].size();
  for (uint32_t Rk = 1; Rk < P; ++Rk)
    if (Seq[Rk].size() != K)
      return Error(Errc::Mismatch, strf("rank 0 makes %zu accesses, rank %u makes %zu", K, Rk, Seq[Rk].size()));
  if (K == 0)
    return Error(Errc::Mismatch, "no accesses");
  std::vector<Step> Steps(K);
  for (size_t I = 0; I < K; ++I) {
    const Access &X0 = *Seq[0][I], &X1 = *Seq[1][I];
    Step &S = Steps[I];
    S.Op = X0.Op;
    S.A = static_cast<int64_t>(X0.Offset);
    S.B = static_cast<int64_t>(X1.Offset) - S.A;
    S.L = static_cast<int64_t>(X0.Length);
    S.LR = static_cast<int64_t>(X1.Length) - S.L;
    S.T = X0.Time;
    for (uint32_t Rk = 1; Rk < P; ++Rk) {
      const Access &X = *Seq[Rk][I];
      if (X.Op != S.Op)
        return Error(Errc::Mismatch, strf("access %zu is a %s on rank 0 and a %s on rank %u", I,
                                          S.Op == IoOp::Write ? "write" : "read",
                                          X.Op == IoOp::Write ? "write" : "read", Rk));
      int64_t WantOff = S.A + static_cast<int64_t>(Rk) * S.B, WantLen = S.L + static_cast<int64_t>(Rk) * S.LR;
      if (static_cast<int64_t>(X.Offset) != WantOff || static_cast<int64_t>(X.Length) != WantLen)
        return Error(Errc::Mismatch,
                     strf("rank %u's access %zu is %llu bytes at %llu; ranks 0 and 1 predict %lld at %lld", Rk, I,
                          static_cast<unsigned long long>(X.Length), static_cast<unsigned long long>(X.Offset),
                          static_cast<long long>(WantLen), static_cast<long long>(WantOff)));
    }
  }
  Out = RankModel();
  Out.Profiled = {P};
  for (size_t I = 0; I < K;) {
    Segment G;
    G.Op = Steps[I].Op;
    G.A0 = Coef::constant(Steps[I].A);
    G.B = Coef::constant(Steps[I].B);
    G.L0 = Coef::constant(Steps[I].L);
    G.LR = Coef::constant(Steps[I].LR);
    G.T0 = Steps[I].T;
    int64_t AStep = I + 1 < K ? Steps[I + 1].A - Steps[I].A : 0;
    size_t J = I + 1;
    while (J < K && Steps[J].Op == G.Op && Steps[J].B == Steps[I].B && Steps[J].L == Steps[I].L &&
           Steps[J].LR == Steps[I].LR && Steps[J].A - Steps[J - 1].A == AStep)
      ++J;
    G.Count = static_cast<uint32_t>(J - I);
    G.AStep = Coef::constant(G.Count > 1 ? AStep : 0);
    G.TStep = G.Count > 1 && Steps[J - 1].T > G.T0 ? (Steps[J - 1].T - G.T0) / (G.Count - 1) : 0;
    Out.Segments.push_back(G);
    I = J;
  }
  return Error();
}

Error combineModels(const std::vector<RankModel> &In, RankModel &Out) {
  if (In.empty())
    return Error(Errc::Mismatch, "no model");
  // Distinct rank counts, each with one model (runs at the same count must agree).
  std::vector<const RankModel *> ByP;
  for (const RankModel &M : In) {
    auto It = std::find_if(ByP.begin(), ByP.end(), [&](const RankModel *X) { return X->Profiled == M.Profiled; });
    if (It == ByP.end()) {
      ByP.push_back(&M);
      continue;
    }
    const RankModel &X = **It;
    bool Same = X.Segments.size() == M.Segments.size();
    for (size_t I = 0; Same && I < M.Segments.size(); ++I) {
      const Segment &A = X.Segments[I], &B = M.Segments[I];
      Same = A.Count == B.Count && A.Op == B.Op && A.A0 == B.A0 && A.AStep == B.AStep && A.B == B.B &&
             A.L0 == B.L0 && A.LR == B.LR;
    }
    if (!Same)
      return Error(Errc::Mismatch, strf("two profiles at %u ranks access it differently (other input sizes?)",
                                        M.Profiled[0]));
  }
  std::sort(ByP.begin(), ByP.end(), [](const RankModel *A, const RankModel *B) { return A->Profiled < B->Profiled; });
  if (ByP.size() == 1) {
    Out = *ByP[0];
    return Error();
  }
  const RankModel &M1 = *ByP[0], &M2 = *ByP[1];
  uint32_t P1 = M1.Profiled[0], P2 = M2.Profiled[0];
  if (M1.Segments.size() != M2.Segments.size())
    return Error(Errc::Mismatch, strf("the access sequence has %zu segments at %u ranks and %zu at %u",
                                      M1.Segments.size(), P1, M2.Segments.size(), P2));
  Out = RankModel();
  for (const RankModel *M : ByP)
    Out.Profiled.push_back(M->Profiled[0]);
  for (size_t I = 0; I < M1.Segments.size(); ++I) {
    const Segment &S1 = M1.Segments[I], &S2 = M2.Segments[I];
    if (S1.Count != S2.Count || S1.Op != S2.Op)
      return Error(Errc::Mismatch, strf("segment %zu has %u accesses at %u ranks and %u at %u", I, S1.Count, P1,
                                        S2.Count, P2));
    Segment G = S1;
    auto Fit = [&](const Coef &C1, const Coef &C2) {
      int64_t V1 = 0, V2 = 0;
      C1.at(P1, V1);
      C2.at(P2, V2);
      return through(P1, V1, P2, V2);
    };
    G.A0 = Fit(S1.A0, S2.A0);
    G.AStep = Fit(S1.AStep, S2.AStep);
    G.B = Fit(S1.B, S2.B);
    G.L0 = Fit(S1.L0, S2.L0);
    G.LR = Fit(S1.LR, S2.LR);
    Out.Segments.push_back(G);
  }
  // Every further rank count must agree with the fitted coefficients.
  for (size_t M = 2; M < ByP.size(); ++M) {
    uint32_t P = ByP[M]->Profiled[0];
    const auto &Segs = ByP[M]->Segments;
    if (Segs.size() != Out.Segments.size())
      return Error(Errc::Mismatch, strf("the access sequence at %u ranks has another shape", P));
    for (size_t I = 0; I < Segs.size(); ++I) {
      const Segment &F = Out.Segments[I], &S = Segs[I];
      auto Agree = [&](const Coef &Fitted, const Coef &Seen) {
        int64_t A = 0, B = 0;
        return Fitted.at(P, A) && Seen.at(P, B) && A == B;
      };
      if (F.Count != S.Count || F.Op != S.Op || !Agree(F.A0, S.A0) || !Agree(F.AStep, S.AStep) ||
          !Agree(F.B, S.B) || !Agree(F.L0, S.L0) || !Agree(F.LR, S.LR))
        return Error(Errc::Mismatch, strf("the profile at %u ranks does not follow the pattern fitted at %u and %u "
                                          "ranks (segment %zu)",
                                          P, P1, P2, I));
    }
  }
  return Error();
}

void assumeWeakScaling(RankModel &M) { M.Extrapolated = true; }

bool modelCovers(const RankModel &M, uint32_t P) {
  if (M.Extrapolated || M.Profiled.size() >= 2)
    return true;
  return std::find(M.Profiled.begin(), M.Profiled.end(), P) != M.Profiled.end();
}

Error instantiate(const RankModel &M, uint32_t P, std::vector<Access> &Out, uint64_t MaxAccesses) {
  if (!modelCovers(M, P))
    return Error(Errc::Mismatch, strf("the pattern was profiled at %u ranks only", M.Profiled.empty() ? 0 : M.Profiled[0]));
  if (static_cast<i128>(M.accessesPerRank()) * P > MaxAccesses)
    return Error(Errc::Mismatch, strf("%llu accesses per rank at %u ranks is more than the %llu this layer derives a "
                                      "plan from",
                                      static_cast<unsigned long long>(M.accessesPerRank()), P,
                                      static_cast<unsigned long long>(MaxAccesses)));
  Out.clear();
  uint32_t SegNo = 0;
  std::vector<uint32_t> Seq(P, 0);
  for (const Segment &S : M.Segments) {
    int64_t A0, AStep, B, L0, LR;
    const char *Bad = !S.A0.at(P, A0)       ? "start offset"
                      : !S.AStep.at(P, AStep) ? "offset step"
                      : !S.B.at(P, B)         ? "per-rank offset"
                      : !S.L0.at(P, L0)       ? "length"
                      : !S.LR.at(P, LR)       ? "per-rank length"
                                              : nullptr;
    if (Bad)
      return Error(Errc::Mismatch, strf("at %u ranks the %s of access segment %u is not a whole number of bytes", P,
                                        Bad, SegNo));
    for (uint32_t K = 0; K < S.Count; ++K)
      for (uint32_t R = 0; R < P; ++R) {
        i128 Off = static_cast<i128>(A0) + static_cast<i128>(K) * AStep + static_cast<i128>(R) * B;
        i128 Len = static_cast<i128>(L0) + static_cast<i128>(R) * LR;
        if (Off < 0 || Len <= 0 || Off + Len > INT64_MAX)
          return Error(Errc::Mismatch, strf("at %u ranks rank %u's access %u of segment %u would be %lld bytes at "
                                            "offset %lld",
                                            P, R, K, SegNo, static_cast<long long>(Len), static_cast<long long>(Off)));
        Access A;
        A.Rank = R;
        A.Op = S.Op;
        A.Offset = static_cast<uint64_t>(Off);
        A.Length = static_cast<uint64_t>(Len);
        A.Time = S.T0 + static_cast<uint64_t>(K) * S.TStep;
        A.Seq = Seq[R]++;
        Out.push_back(A);
      }
    ++SegNo;
  }
  return Error();
}

} // namespace iopoly::prof
