//===- ClusterModel.cpp - A modeled cluster replaying profile logs ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "model/ClusterModel.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace iopoly::prof {

double DeviceParams::serviceTime(uint64_t Bytes, bool Write, bool Seq) const {
  double Bw = Write && WriteBw > 0 ? WriteBw : ReadBw;
  return (Seq ? SeqLatency : Latency) + (Bw > 0 ? static_cast<double>(Bytes) / Bw : 0.0);
}

Error parseDevice(const std::string &Text, const std::string &What, DeviceParams &Out) {
  DeviceParams D = Out;
  std::stringstream S(Text);
  std::string Item;
  while (std::getline(S, Item, ',')) {
    size_t Eq = Item.find('=');
    if (Eq == std::string::npos)
      return Error(Errc::BadInput, strf("%s: '%s' is not key=value (latency=, seq=, bw=, wbw=)", What.c_str(),
                                        Item.c_str()));
    std::string K = Item.substr(0, Eq), V = Item.substr(Eq + 1);
    Error E;
    if (K == "latency")
      E = parseSeconds(V, D.Latency);
    else if (K == "seq")
      E = parseSeconds(V, D.SeqLatency);
    else if (K == "bw" || K == "wbw") {
      uint64_t B = 0;
      E = parseBytes(V, B);
      (K == "bw" ? D.ReadBw : D.WriteBw) = static_cast<double>(B);
    } else
      return Error(Errc::BadInput, strf("%s: unknown key '%s' (latency=, seq=, bw=, wbw=)", What.c_str(), K.c_str()));
    if (E)
      return Error(Errc::BadInput, What + ": " + E.message());
  }
  Out = D;
  return Error();
}

std::string deviceString(const DeviceParams &D) {
  return strf("latency=%gms,seq=%gms,bw=%s/s,wbw=%s/s", D.Latency * 1e3, D.SeqLatency * 1e3,
              humanBytes(D.ReadBw).c_str(), humanBytes(D.WriteBw > 0 ? D.WriteBw : D.ReadBw).c_str());
}

namespace {

struct Device {
  const DeviceParams *P = nullptr;
  double Free = 0, Busy = 0;
  uint64_t LastFile = ~0ull, LastEnd = 0;
  uint64_t Requests = 0;
  double serve(double T, uint64_t File, uint64_t Off, uint64_t Bytes, bool Write) {
    bool Seq = LastFile == File && LastEnd == Off;
    double S = P->serviceTime(Bytes, Write, Seq);
    double Start = std::max(T, Free);
    Free = Start + S;
    Busy += S;
    LastFile = File;
    LastEnd = Off + Bytes;
    ++Requests;
    return Free;
  }
};

struct Item {
  bool IsAccess;
  const AccessRecord *A;
  const EventRecord *E;
};

struct Call {
  uint32_t No = 0;
  std::vector<Item> Items;
  int64_t Sync = -1;       ///< synchronization key, -1 none
  uint32_t Members = 0;    ///< ranks that take part in it
  bool Reads = false, Writes = false;
};

uint64_t fileKey(const std::string &Path) {
  uint64_t H = 1469598103934665603ull;
  for (unsigned char C : Path) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return H;
}

bool collectiveEvent(const EventRecord &E) { return E.Flags & AfCollective; }

} // namespace

Error modelRun(const Run &R, const ClusterParams &P, ModelResult &Out) {
  Out = ModelResult();
  uint32_t N = R.NRanks;
  Out.NRanks = N;
  Out.Ranks.resize(N);
  if (R.missingRanks())
    Out.Notes.push_back(strf("%zu of %u ranks have no log section; they are left out", R.missingRanks(), N));

  // Devices: central disk, link, then a disk and a port per node.
  std::vector<Device> Dev(2);
  Dev[0].P = &P.Central;
  Dev[1].P = &P.Link;
  std::map<std::string, size_t> NodeOf;
  std::vector<size_t> RankNode(N, 0);
  for (uint32_t Rk = 0; Rk < N; ++Rk) {
    const Section *S = R.Ranks[Rk];
    std::string Key = S && !S->LocalDir.empty() ? "dir:" + S->LocalDir : strf("rank:%u", Rk);
    auto It = NodeOf.find(Key);
    if (It == NodeOf.end()) {
      It = NodeOf.emplace(Key, Dev.size()).first;
      Dev.emplace_back();
      Dev.back().P = &P.Local;
      Dev.emplace_back();
      Dev.back().P = &P.Port;
    }
    RankNode[Rk] = It->second;
  }

  // Calls per rank, in program order, with their synchronization keys.
  std::map<std::pair<uint64_t, uint32_t>, int64_t> Keys;
  std::vector<std::vector<Call>> Calls(N);
  for (uint32_t Rk = 0; Rk < N; ++Rk) {
    const Section *S = R.Ranks[Rk];
    if (!S)
      continue;
    std::map<uint32_t, Call> ByNo;
    for (const AccessRecord &A : S->Accesses) {
      Call &C = ByNo[A.Call];
      C.No = A.Call;
      C.Items.push_back({true, &A, nullptr});
    }
    for (const EventRecord &E : S->Events) {
      Call &C = ByNo[E.Call];
      C.No = E.Call;
      C.Items.push_back({false, nullptr, &E});
    }
    std::map<uint64_t, uint32_t> CollSeq; // instance -> collectives so far
    for (auto &[No, C] : ByNo) {
      for (const Item &I : C.Items) {
        uint64_t Inst = 0;
        uint32_t Members = 0;
        bool Coll = false;
        if (I.IsAccess) {
          const LoggedFile *F = S->file(I.A->File);
          if (!(I.A->Flags & AfInternal)) {
            C.Reads |= I.A->Op == static_cast<uint8_t>(IoOp::Read);
            C.Writes |= I.A->Op == static_cast<uint8_t>(IoOp::Write);
          }
          Coll = (I.A->Flags & AfCollective) && F; // the layer's collective gather too
          if (Coll) {
            Inst = F->Instance;
            Members = F->CommSize;
          }
        } else if (I.E->Event == static_cast<uint8_t>(EventKind::Barrier)) {
          Coll = I.E->Arg0 == N && N > 1;
          Inst = ~0ull;
          Members = N;
        } else if (collectiveEvent(*I.E)) {
          const LoggedFile *F = S->file(I.E->File);
          Coll = F != nullptr;
          if (F) {
            Inst = F->Instance;
            Members = F->CommSize;
          }
        }
        if (Coll && C.Sync < 0 && Members > 1) {
          auto K = std::make_pair(Inst, CollSeq[Inst]++);
          auto It = Keys.emplace(K, static_cast<int64_t>(Keys.size())).first;
          C.Sync = It->second;
          C.Members = Members;
        }
      }
      Calls[Rk].push_back(std::move(C));
    }
  }

  // Event loop.
  std::vector<size_t> Next(N, 0);
  std::vector<double> Clock(N, 0.0);
  std::vector<bool> Waiting(N, false), Released(N, false);
  struct Arrivals {
    std::vector<uint32_t> Ranks;
    uint32_t Members = 0;
  };
  std::map<int64_t, Arrivals> Pending;

  auto Serve = [&](uint32_t Rk, const AccessRecord &A, uint64_t File, double T) {
    bool W = A.Op == static_cast<uint8_t>(IoOp::Write);
    Target Tg = static_cast<Target>(A.Target);
    if (Tg <= Target::Push)
      Out.BytesByTarget[static_cast<int>(Tg)] += A.Length;
    if (A.Flags & AfInternal)
      Out.InternalBytes += A.Length;
    // Node-local files are laid out in the plan's order: their offsets,
    // not the shared file's, tell sequential requests.
    uint64_t LocalOff = A.LocalOff != kNoLocal ? A.LocalOff : A.Offset;
    switch (Tg) {
    case Target::Local:
      return Dev[RankNode[Rk]].serve(T, File ^ Rk, LocalOff, A.Length, W);
    case Target::Remote:
    case Target::Push: {
      size_t Node = A.Peer < N ? RankNode[A.Peer] : RankNode[Rk];
      double D1 = Dev[Node + 1].serve(T, ~1ull, 0, A.Length, W);
      double D2 = Dev[Node].serve(T, File ^ A.Peer, LocalOff, A.Length, W);
      return std::max(D1, D2);
    }
    case Target::Shared:
    default: {
      ++Out.CentralRequests;
      double D1 = Dev[1].serve(T, ~1ull, 0, A.Length, W);
      double D2 = Dev[0].serve(T, File, A.Offset, A.Length, W);
      return std::max(D1, D2);
    }
    }
  };

  auto FileOf = [&](uint32_t Rk, uint32_t Id) {
    const LoggedFile *F = R.Ranks[Rk]->file(Id);
    return F ? fileKey(F->Path) : 0ull;
  };

  // Runs call C of rank Rk from time T; pooled central pieces already served.
  auto RunCall = [&](uint32_t Rk, const Call &C, double T, bool SkipPooled) {
    double Start = T;
    for (const Item &I : C.Items) {
      if (!I.IsAccess)
        continue;
      const AccessRecord &A = *I.A;
      if (SkipPooled && (A.Flags & AfCollective) && static_cast<Target>(A.Target) == Target::Shared)
        continue;
      T = Serve(Rk, A, FileOf(Rk, A.File), T);
    }
    return std::make_pair(Start, T);
  };

  auto Account = [&](uint32_t Rk, const Call &C, double Start, double End) {
    RankResult &RR = Out.Ranks[Rk];
    double Lat = std::max(0.0, End - Start);
    uint64_t RB = 0, WB = 0;
    for (const Item &I : C.Items)
      if (I.IsAccess && !(I.A->Flags & AfInternal))
        (I.A->Op == static_cast<uint8_t>(IoOp::Write) ? WB : RB) += I.A->Length;
    if (C.Reads || C.Writes) {
      // A call that reads and writes (none in MPI-IO) would split by bytes.
      double Share = RB + WB ? static_cast<double>(RB) / static_cast<double>(RB + WB) : 0;
      if (C.Reads) {
        RR.Read.Bytes += RB;
        RR.Read.Calls += 1;
        RR.Read.Seconds += Lat * Share;
      }
      if (C.Writes) {
        RR.Write.Bytes += WB;
        RR.Write.Calls += 1;
        RR.Write.Seconds += Lat * (1 - Share);
      }
    } else {
      RR.OtherSeconds += Lat;
    }
  };

  for (;;) {
    // The runnable rank with the earliest clock.
    int Best = -1;
    for (uint32_t Rk = 0; Rk < N; ++Rk)
      if (!Waiting[Rk] && Next[Rk] < Calls[Rk].size() && (Best < 0 || Clock[Rk] < Clock[Best]))
        Best = static_cast<int>(Rk);
    if (Best < 0) {
      if (Pending.empty())
        break;
      // Every rank left waits for a collective some rank never reached
      // (a truncated log): release the oldest one with those present.
      auto It = Pending.begin();
      Out.Notes.push_back(strf("a collective call was reached by %zu of %u ranks (truncated log?); released",
                               It->second.Ranks.size(), It->second.Members));
      It->second.Members = static_cast<uint32_t>(It->second.Ranks.size());
      // Fall through to the release below with this key.
      int64_t Key = It->first;
      Arrivals A = It->second;
      Pending.erase(It);
      double T = 0;
      for (uint32_t Rk : A.Ranks)
        T = std::max(T, Clock[Rk]);
      for (uint32_t Rk : A.Ranks) {
        Clock[Rk] = T;
        Waiting[Rk] = false;
        Released[Rk] = true;
      }
      (void)Key;
      continue;
    }
    uint32_t Rk = static_cast<uint32_t>(Best);
    const Call &C = Calls[Rk][Next[Rk]];
    if (C.Sync >= 0 && !Released[Rk]) {
      Arrivals &A = Pending[C.Sync];
      A.Members = C.Members;
      A.Ranks.push_back(Rk);
      Waiting[Rk] = true;
      if (A.Ranks.size() < A.Members)
        continue;
      // Everybody is here: synchronize, then serve the pooled central
      // pieces of a collective access as two-phase I/O would.
      double T = 0;
      for (uint32_t X : A.Ranks)
        T = std::max(T, Clock[X]);
      std::vector<std::pair<uint64_t, uint64_t>> Pieces;
      bool W = false;
      uint64_t File = 0;
      for (uint32_t X : A.Ranks)
        for (const Item &I : Calls[X][Next[X]].Items)
          if (I.IsAccess && (I.A->Flags & AfCollective) && static_cast<Target>(I.A->Target) == Target::Shared) {
            Pieces.push_back({I.A->Offset, I.A->Offset + I.A->Length});
            W = I.A->Op == static_cast<uint8_t>(IoOp::Write);
            File = FileOf(X, I.A->File);
            Out.BytesByTarget[0] += I.A->Length;
            if (I.A->Flags & AfInternal)
              Out.InternalBytes += I.A->Length;
          }
      double PoolDone = T;
      if (!Pieces.empty()) {
        std::sort(Pieces.begin(), Pieces.end());
        std::vector<std::pair<uint64_t, uint64_t>> Runs;
        for (auto &Pc : Pieces)
          if (!Runs.empty() && Pc.first <= Runs.back().second)
            Runs.back().second = std::max(Runs.back().second, Pc.second);
          else
            Runs.push_back(Pc);
        for (auto &Rn : Runs)
          for (uint64_t Off = Rn.first; Off < Rn.second; Off += P.CollectiveBuffer) {
            uint64_t Len = std::min<uint64_t>(P.CollectiveBuffer, Rn.second - Off);
            ++Out.CentralRequests;
            double D1 = Dev[1].serve(PoolDone, ~1ull, 0, Len, W);
            double D2 = Dev[0].serve(PoolDone, File, Off, Len, W);
            PoolDone = std::max(D1, D2);
          }
      }
      for (uint32_t X : A.Ranks) {
        const Call &CX = Calls[X][Next[X]];
        auto [S, E] = RunCall(X, CX, T, true);
        E = std::max(E, PoolDone);
        Account(X, CX, S, E);
        Clock[X] = E;
        Waiting[X] = false;
        Released[X] = false;
        ++Next[X];
      }
      Pending.erase(C.Sync);
      continue;
    }
    auto [S, E] = RunCall(Rk, C, Clock[Rk], false);
    Account(Rk, C, S, E);
    Clock[Rk] = E;
    Released[Rk] = false;
    ++Next[Rk];
  }

  for (uint32_t Rk = 0; Rk < N; ++Rk) {
    RankResult &RR = Out.Ranks[Rk];
    RR.Clock = Clock[Rk];
    Out.Makespan = std::max(Out.Makespan, Clock[Rk]);
    for (OpTotals *T : {&Out.Read, &Out.Write}) {
      const OpTotals &Src = T == &Out.Read ? RR.Read : RR.Write;
      T->Bytes += Src.Bytes;
      T->Calls += Src.Calls;
      T->Seconds += Src.Seconds;
    }
    if (RR.Read.Seconds > 0)
      Out.ReadBandwidth += static_cast<double>(RR.Read.Bytes) / RR.Read.Seconds;
    if (RR.Write.Seconds > 0)
      Out.WriteBandwidth += static_cast<double>(RR.Write.Bytes) / RR.Write.Seconds;
  }
  Out.CentralBusy = Dev[0].Busy;
  Out.LinkBusy = Dev[1].Busy;
  for (size_t D = 2; D < Dev.size(); D += 2)
    Out.LocalBusyMax = std::max(Out.LocalBusyMax, Dev[D].Busy);
  return Error();
}

} // namespace iopoly::prof
