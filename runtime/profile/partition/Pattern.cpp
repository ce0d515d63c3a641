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

uint64_t RankModel::accessesPerRank(uint32_t P) const {
  uint64_t N = 0;
  for (const Segment &S : Segments) {
    int64_t C = 0;
    if (S.Count.at(P, C) && C > 0)
      N += static_cast<uint64_t>(C);
  }
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
  // The pattern comes from ranks 0 and 1 when every rank makes as many
  // accesses; otherwise from the inner ranks, the first and the last rank
  // making accesses of their own besides.
  uint32_t R0 = 0, R1 = 1, First = 0, Last = P - 1;
  bool Edges = false;
  for (uint32_t Rk = 1; Rk < P; ++Rk)
    if (Seq[Rk].size() != Seq[0].size())
      Edges = true;
  if (Edges) {
    if (P < 4)
      return Error(Errc::Mismatch, strf("rank 0 makes %zu accesses, rank 1 makes %zu (below 4 ranks the first and "
                                        "last rank's own accesses cannot be told apart)",
                                        Seq[0].size(), Seq[1].size()));
    R0 = 1;
    R1 = 2;
    First = 1;
    Last = P - 2;
    for (uint32_t Rk = 2; Rk <= Last; ++Rk)
      if (Seq[Rk].size() != Seq[1].size())
        return Error(Errc::Mismatch, strf("rank 1 makes %zu accesses, rank %u makes %zu", Seq[1].size(), Rk,
                                          Seq[Rk].size()));
  }
  size_t K = Seq[R0].size();
  if (K == 0)
    return Error(Errc::Mismatch, "no accesses");
  std::vector<Step> Steps(K);
  for (size_t I = 0; I < K; ++I) {
    const Access &X0 = *Seq[R0][I], &X1 = *Seq[R1][I];
    Step &S = Steps[I];
    S.Op = X0.Op;
    S.B = static_cast<int64_t>(X1.Offset) - static_cast<int64_t>(X0.Offset);
    S.A = static_cast<int64_t>(X0.Offset) - static_cast<int64_t>(R0) * S.B;
    S.LR = static_cast<int64_t>(X1.Length) - static_cast<int64_t>(X0.Length);
    S.L = static_cast<int64_t>(X0.Length) - static_cast<int64_t>(R0) * S.LR;
    S.T = X0.Time;
    for (uint32_t Rk = First; Rk <= Last; ++Rk) {
      const Access &X = *Seq[Rk][I];
      if (X.Op != S.Op)
        return Error(Errc::Mismatch, strf("access %zu is a %s on rank %u and a %s on rank %u", I,
                                          S.Op == IoOp::Write ? "write" : "read", R0,
                                          X.Op == IoOp::Write ? "write" : "read", Rk));
      int64_t WantOff = S.A + static_cast<int64_t>(Rk) * S.B, WantLen = S.L + static_cast<int64_t>(Rk) * S.LR;
      if (static_cast<int64_t>(X.Offset) != WantOff || static_cast<int64_t>(X.Length) != WantLen)
        return Error(Errc::Mismatch,
                     strf("rank %u's access %zu is %llu bytes at %llu; ranks %u and %u predict %lld at %lld", Rk, I,
                          static_cast<unsigned long long>(X.Length), static_cast<unsigned long long>(X.Offset), R0,
                          R1, static_cast<long long>(WantLen), static_cast<long long>(WantOff)));
    }
  }
  // The edge ranks: the common pattern, in order, plus their own accesses.
  std::vector<EdgeAccess> EdgeList;
  if (Edges)
    for (uint32_t E : {0u, P - 1}) {
      size_t J = 0;
      for (const Access *X : Seq[E]) {
        if (J < K) {
          const Step &S = Steps[J];
          if (X->Op == S.Op && static_cast<int64_t>(X->Offset) == S.A + static_cast<int64_t>(E) * S.B &&
              static_cast<int64_t>(X->Length) == S.L + static_cast<int64_t>(E) * S.LR) {
            ++J;
            continue;
          }
        }
        EdgeAccess A;
        A.Last = E != 0;
        A.Op = X->Op;
        A.Off = Coef::constant(static_cast<int64_t>(X->Offset));
        A.Len = Coef::constant(static_cast<int64_t>(X->Length));
        A.T = X->Time;
        EdgeList.push_back(A);
      }
      if (J < K)
        return Error(Errc::Mismatch, strf("rank %u does not make the inner ranks' access %zu (%lld bytes at %lld)",
                                          E, J, static_cast<long long>(Steps[J].L + E * Steps[J].LR),
                                          static_cast<long long>(Steps[J].A + E * Steps[J].B)));
    }
  Out = RankModel();
  Out.Profiled = {P};
  Out.Edges = std::move(EdgeList);
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
    uint64_t N = J - I;
    G.Count = Coef::constant(static_cast<int64_t>(N));
    G.AStep = Coef::constant(N > 1 ? AStep : 0);
    G.TStep = N > 1 && Steps[J - 1].T > G.T0 ? (Steps[J - 1].T - G.T0) / (N - 1) : 0;
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
    bool Same = X.Segments.size() == M.Segments.size() && X.Edges.size() == M.Edges.size();
    for (size_t I = 0; Same && I < M.Edges.size(); ++I)
      Same = X.Edges[I].Last == M.Edges[I].Last && X.Edges[I].Op == M.Edges[I].Op &&
             X.Edges[I].Off == M.Edges[I].Off && X.Edges[I].Len == M.Edges[I].Len;
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
    if (S1.Op != S2.Op)
      return Error(Errc::Mismatch, strf("segment %zu reads at one rank count and writes at another", I));
    Segment G = S1;
    auto Fit = [&](const Coef &C1, const Coef &C2) {
      int64_t V1 = 0, V2 = 0;
      C1.at(P1, V1);
      C2.at(P2, V2);
      return through(P1, V1, P2, V2);
    };
    G.Count = Fit(S1.Count, S2.Count); // more ranks may mean fewer accesses each
    G.A0 = Fit(S1.A0, S2.A0);
    G.AStep = Fit(S1.AStep, S2.AStep);
    G.B = Fit(S1.B, S2.B);
    G.L0 = Fit(S1.L0, S2.L0);
    G.LR = Fit(S1.LR, S2.LR);
    Out.Segments.push_back(G);
  }
  if (M1.Edges.size() != M2.Edges.size())
    return Error(Errc::Mismatch, strf("the first and last rank make %zu accesses of their own at %u ranks and %zu at %u",
                                      M1.Edges.size(), P1, M2.Edges.size(), P2));
  for (size_t I = 0; I < M1.Edges.size(); ++I) {
    const EdgeAccess &E1 = M1.Edges[I], &E2 = M2.Edges[I];
    if (E1.Last != E2.Last || E1.Op != E2.Op)
      return Error(Errc::Mismatch, strf("the edge ranks' own access %zu differs between %u and %u ranks", I, P1, P2));
    EdgeAccess G = E1;
    int64_t V1 = 0, V2 = 0;
    E1.Off.at(P1, V1);
    E2.Off.at(P2, V2);
    G.Off = through(P1, V1, P2, V2);
    E1.Len.at(P1, V1);
    E2.Len.at(P2, V2);
    G.Len = through(P1, V1, P2, V2);
    Out.Edges.push_back(G);
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
      if (!Agree(F.Count, S.Count) || F.Op != S.Op || !Agree(F.A0, S.A0) || !Agree(F.AStep, S.AStep) ||
          !Agree(F.B, S.B) || !Agree(F.L0, S.L0) || !Agree(F.LR, S.LR))
        return Error(Errc::Mismatch, strf("the profile at %u ranks does not follow the pattern fitted at %u and %u "
                                          "ranks (segment %zu)",
                                          P, P1, P2, I));
    }
    const auto &Es = ByP[M]->Edges;
    bool EdgesAgree = Es.size() == Out.Edges.size();
    for (size_t I = 0; EdgesAgree && I < Es.size(); ++I) {
      int64_t A = 0, B = 0, C = 0, D = 0;
      EdgesAgree = Es[I].Last == Out.Edges[I].Last && Es[I].Op == Out.Edges[I].Op && Out.Edges[I].Off.at(P, A) &&
                   Es[I].Off.at(P, B) && A == B && Out.Edges[I].Len.at(P, C) && Es[I].Len.at(P, D) && C == D;
    }
    if (!EdgesAgree)
      return Error(Errc::Mismatch, strf("the edge ranks' own accesses at %u ranks do not follow those fitted at %u and "
                                        "%u ranks",
                                        P, P1, P2));
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
  if (static_cast<i128>(M.accessesPerRank(P)) * P > MaxAccesses)
    return Error(Errc::Mismatch, strf("%llu accesses per rank at %u ranks is more than the %llu this layer derives a "
                                      "plan from",
                                      static_cast<unsigned long long>(M.accessesPerRank(P)), P,
                                      static_cast<unsigned long long>(MaxAccesses)));
  Out.clear();
  uint32_t SegNo = 0;
  std::vector<uint32_t> Seq(P, 0);
  for (const Segment &S : M.Segments) {
    int64_t A0, AStep, B, L0, LR, Count;
    const char *Bad = !S.Count.at(P, Count) || Count < 0 ? "number of accesses"
                      : !S.A0.at(P, A0)       ? "start offset"
                      : !S.AStep.at(P, AStep) ? "offset step"
                      : !S.B.at(P, B)         ? "per-rank offset"
                      : !S.L0.at(P, L0)       ? "length"
                      : !S.LR.at(P, LR)       ? "per-rank length"
                                              : nullptr;
    if (Bad)
      return Error(Errc::Mismatch, strf("at %u ranks the %s of access segment %u is not a whole number of bytes", P,
                                        Bad, SegNo));
    for (int64_t K = 0; K < Count; ++K)
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
  for (const EdgeAccess &E : M.Edges) {
    int64_t Off = 0, Len = 0;
    if (!E.Off.at(P, Off) || !E.Len.at(P, Len) || Off < 0 || Len <= 0)
      return Error(Errc::Mismatch, strf("at %u ranks an access of the %s rank is not a whole number of bytes at a "
                                        "whole offset",
                                        P, E.Last ? "last" : "first"));
    Access A;
    A.Rank = E.Last ? P - 1 : 0;
    A.Op = E.Op;
    A.Offset = static_cast<uint64_t>(Off);
    A.Length = static_cast<uint64_t>(Len);
    A.Time = E.T;
    A.Seq = Seq[A.Rank]++;
    Out.push_back(A);
  }
  return Error();
}

} // namespace iopoly::prof
