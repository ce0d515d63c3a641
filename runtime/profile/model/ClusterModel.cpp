//===- ClusterModel.cpp - A modeled cluster replaying profile logs ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "model/ClusterModel.h"
#include "common/Sieve.h"

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
  /// Per item: 0 a request of its own, -1 read in an earlier item's sweep,
  /// > 0 the first item of a sweep of that many bytes (Sieve.h).
  std::vector<int64_t> Sweep;
  std::vector<uint64_t> SweepAt; ///< where a sweep starts in the local file
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
      // The node-local reads of the call, in sweeps as the layer reads them.
      C.Sweep.assign(C.Items.size(), 0);
      C.SweepAt.assign(C.Items.size(), 0);
      std::vector<SievePiece> Local;
      for (size_t K = 0; K < C.Items.size(); ++K) {
        const Item &I = C.Items[K];
        if (I.IsAccess && !(I.A->Flags & AfInternal) && I.A->Op == static_cast<uint8_t>(IoOp::Read) &&
            static_cast<Target>(I.A->Target) == Target::Local && I.A->LocalOff != kNoLocal)
          Local.push_back({I.A->LocalOff, I.A->Length, K});
      }
      // Consecutive node-local writes that follow each other in the local
      // file: one write.
      for (size_t K = 0; K < C.Items.size();) {
        const Item &I = C.Items[K];
        auto LocalWrite = [&](const Item &X) {
          return X.IsAccess && !(X.A->Flags & AfInternal) && X.A->Op == static_cast<uint8_t>(IoOp::Write) &&
                 static_cast<Target>(X.A->Target) == Target::Local && X.A->LocalOff != kNoLocal;
        };
        if (!LocalWrite(I)) {
          ++K;
          continue;
        }
        size_t J = K + 1;
        uint64_t End = I.A->LocalOff + I.A->Length;
        while (J < C.Items.size() && LocalWrite(C.Items[J]) && C.Items[J].A->LocalOff == End) {
          End += C.Items[J].A->Length;
          C.Sweep[J] = -1;
          ++J;
        }
        C.Sweep[K] = static_cast<int64_t>(End - I.A->LocalOff);
        C.SweepAt[K] = I.A->LocalOff;
        K = J;
      }
      if (Local.size() > 1)
        for (auto [First, Last] : sieve(Local)) {
          size_t Lead = Local[First].Index;
          uint64_t End = 0;
          for (size_t K = First; K < Last; ++K) {
            Lead = std::min(Lead, Local[K].Index);
            End = std::max(End, Local[K].Local + Local[K].Len);
          }
          for (size_t K = First; K < Last; ++K)
            C.Sweep[Local[K].Index] = -1;
          C.Sweep[Lead] = static_cast<int64_t>(End - Local[First].Local);
          C.SweepAt[Lead] = Local[First].Local; // the sweep starts where the group does
        }
      Calls[Rk].push_back(std::move(C));
    }
  }

  // Event loop, one record at a time: the rank with the earliest clock
  // goes next, so every device queue is served in time order.
  std::vector<size_t> Next(N, 0), Cursor(N, 0);
  std::vector<double> Clock(N, 0.0), CallStart(N, 0.0), PoolEnd(N, 0.0), IssuedAt(N, 0.0);
  std::vector<bool> Waiting(N, false), InCall(N, false);
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
  auto Pooled = [](const AccessRecord &A) {
    return (A.Flags & AfCollective) && static_cast<Target>(A.Target) == Target::Shared;
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

  // Synchronizes the ranks of a collective call and serves its pooled
  // central pieces as two-phase collective I/O would.
  auto Release = [&](const Arrivals &A) {
    double T = 0;
    for (uint32_t X : A.Ranks)
      T = std::max(T, Clock[X]);
    std::vector<std::pair<uint64_t, uint64_t>> Pieces;
    bool W = false;
    uint64_t File = 0;
    for (uint32_t X : A.Ranks)
      for (const Item &I : Calls[X][Next[X]].Items)
        if (I.IsAccess && Pooled(*I.A)) {
          Pieces.push_back({I.A->Offset, I.A->Offset + I.A->Length});
          W = I.A->Op == static_cast<uint8_t>(IoOp::Write);
          File = FileOf(X, I.A->File);
          Out.BytesByTarget[0] += I.A->Length;
          if (I.A->Flags & AfInternal)
            Out.InternalBytes += I.A->Length;
        }
    double Done = T;
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
          double D1 = Dev[1].serve(Done, ~1ull, 0, Len, W);
          double D2 = Dev[0].serve(Done, File, Off, Len, W);
          Done = std::max(D1, D2);
        }
    }
    for (uint32_t X : A.Ranks) {
      Clock[X] = T;
      CallStart[X] = T;
      PoolEnd[X] = Done;
      Waiting[X] = false;
      InCall[X] = true;
      Cursor[X] = 0;
    }
  };

  for (;;) {
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
      Arrivals A = It->second;
      Pending.erase(It);
      Release(A);
      continue;
    }
    uint32_t Rk = static_cast<uint32_t>(Best);
    const Call &C = Calls[Rk][Next[Rk]];
    if (!InCall[Rk]) {
      if (C.Sync >= 0) {
        Arrivals &A = Pending[C.Sync];
        A.Members = C.Members;
        A.Ranks.push_back(Rk);
        Waiting[Rk] = true;
        if (A.Ranks.size() >= A.Members) {
          Arrivals Done = A;
          Pending.erase(C.Sync);
          Release(Done);
        }
        continue;
      }
      InCall[Rk] = true;
      Cursor[Rk] = 0;
      CallStart[Rk] = PoolEnd[Rk] = Clock[Rk];
    }
    // One record of the call (pooled pieces were served at the release).
    while (Cursor[Rk] < C.Items.size()) {
      size_t K = Cursor[Rk]++;
      const Item &I = C.Items[K];
      if (!I.IsAccess || Pooled(*I.A) || C.Sweep[K] < 0)
        continue;
      if (C.Sweep[K] > 0) { // one read over the group's span, or one merged write
        AccessRecord A = *I.A;
        A.LocalOff = C.SweepAt[K];
        A.Length = static_cast<uint64_t>(C.Sweep[K]);
        Clock[Rk] = Serve(Rk, A, FileOf(Rk, A.File), Clock[Rk]);
        break;
      }
      if (I.A->Flags & AfConcurrent) { // issued with the previous one: overlaps it
        Clock[Rk] = std::max(Clock[Rk], Serve(Rk, *I.A, FileOf(Rk, I.A->File), IssuedAt[Rk]));
        break;
      }
      IssuedAt[Rk] = Clock[Rk];
      Clock[Rk] = Serve(Rk, *I.A, FileOf(Rk, I.A->File), Clock[Rk]);
      break;
    }
    if (Cursor[Rk] < C.Items.size())
      continue;
    double End = std::max(Clock[Rk], PoolEnd[Rk]);
    Account(Rk, C, CallStart[Rk], End);
    Clock[Rk] = End;
    InCall[Rk] = false;
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
