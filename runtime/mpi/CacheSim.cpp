//===- CacheSim.cpp - Trace-driven simulator of the cache hierarchy --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/CacheSim.h"

#include "core/Config.h"
#include "core/Json.h"
#include "core/Layout.h"
#include "io/DiskModel.h"

#include <algorithm>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <unordered_set>

namespace iopoly {

namespace {

/// One step of a rank's trace: a transfer, or a sync point of an array.
struct Step {
  bool Sync = false;
  int Array = -1;    ///< global array number (by name)
  const TraceRequest *Rq = nullptr;
  std::vector<int> Epochs; ///< per array: sync points of it passed before this step
};

struct Rank {
  std::vector<Step> Steps;
  std::map<int, int> Syncs; ///< array -> sync points in the trace
  int Client = 0, Io = 0, Storage = 0;
};

/// The caches, disks and network of the topology.
struct Machine {
  const Topology &T;
  size_t Stripe;
  NetModel Net;
  std::vector<CacheNode> L2, L3;
  std::vector<std::unique_ptr<DiskModel>> Disks;

  Machine(const Topology &T, size_t Stripe) : T(T), Stripe(Stripe) {
    Net.Latency = T.NetLatency;
    Net.Bandwidth = T.NetBandwidth;
    for (const TopoIoNode &N : T.IoNodes)
      L2.emplace_back(std::max<uint64_t>(1, N.CacheBytes / Stripe));
    for (const TopoStorageNode &N : T.StorageNodes)
      L3.emplace_back(std::max<uint64_t>(1, N.CacheBytes / Stripe));
  }
  std::string init() {
    for (size_t D = 0; D < T.Disks.size(); ++D) {
      DiskModelParams P;
      if (Status S = parseDiskModel(T.Disks[D].Model, P))
        return "disk " + std::to_string(D) + ": " + S.message();
      Disks.push_back(std::make_unique<DiskModel>(P, 1));
    }
    return "";
  }
  bool cacheable(const TraceRequest &R) const { return R.Offset == 0 && R.Bytes == Stripe; }
  /// Modeled time a transfer reaching disk D at Arrive is done there.
  double diskTime(const TraceRequest &R, double Arrive) {
    DiskModel &M = *Disks[R.Disk % Disks.size()];
    if (!M.enabled())
      return Arrive;
    uint64_t Off = HeaderBytes + (R.Stripe / T.Disks.size()) * Stripe + R.Offset;
    return M.submit(0, R.FileKey, Off, R.Bytes, Arrive).Done;
  }
  /// The disk part seen from storage node S at Arrive: time back at S.
  double disk(const TraceRequest &R, int S, double Arrive) {
    int Owner = T.Disks[R.Disk % T.Disks.size()].StorageNode;
    size_t Up = R.Write ? R.Bytes : 0, Down = R.Write ? 0 : R.Bytes;
    if (Owner == S)
      return diskTime(R, Arrive);
    return diskTime(R, Arrive + Net.hop(Up)) + Net.hop(Down);
  }
  /// A whole transfer issued at T0 by a client of I/O node Io, served
  /// entirely in this order (clock mode). Returns the level and the time.
  std::pair<int, double> serve(const TraceRequest &R, int Io, double T0) {
    int S = T.IoNodes[static_cast<size_t>(Io)].StorageNode;
    BlockKey K{R.FileKey, R.Stripe};
    if (R.Write) {
      double A2 = T0 + Net.hop(R.Bytes);
      L2[static_cast<size_t>(Io)].write(K, R.Bytes);
      double A3 = A2 + Net.hop(R.Bytes);
      L3[static_cast<size_t>(S)].write(K, R.Bytes);
      return {4, disk(R, S, A3) + Net.hop(0) + Net.hop(0)};
    }
    bool Whole = cacheable(R);
    double A2 = T0 + Net.hop(0);
    if (Whole && L2[static_cast<size_t>(Io)].read(K, R.Bytes))
      return {2, A2 + Net.hop(R.Bytes)};
    double A3 = A2 + Net.hop(0);
    if (Whole && L3[static_cast<size_t>(S)].read(K, R.Bytes))
      return {3, A3 + Net.hop(R.Bytes) + Net.hop(R.Bytes)};
    return {4, disk(R, S, A3) + Net.hop(R.Bytes) + Net.hop(R.Bytes)};
  }
};

void count(SimClient &C, const TraceRequest &R, int Level) {
  if (R.Write) {
    for (LevelCounters *L : {&C.L2, &C.L3, &C.Disk}) {
      L->Writes++;
      L->BytesWritten += R.Bytes;
    }
    return;
  }
  C.L2.Reads++;
  C.L2.BytesRead += R.Bytes;
  (Level == 2 ? C.L2.Hits : C.L2.Misses)++;
  if (Level < 3)
    return;
  C.L3.Reads++;
  C.L3.BytesRead += R.Bytes;
  (Level == 3 ? C.L3.Hits : C.L3.Misses)++;
  if (Level == 4) {
    C.Disk.Reads++;
    C.Disk.BytesRead += R.Bytes;
  }
}

/// Drops[array][epoch][level 0 = L2, 1 = L3][node]: what each node drops
/// at the end of that epoch. The writes of an epoch, and therefore these
/// lists, do not depend on the order of the requests.
using DropTable = std::map<int, std::vector<std::vector<std::vector<std::vector<BlockKey>>>>>;

DropTable dropTable(const Topology &T, const std::vector<Rank> &Ranks) {
  // Writes per (array, epoch, level, node).
  std::map<int, std::map<int, std::vector<std::vector<std::map<BlockKey, uint32_t>>>>> W;
  // A write belongs to its array's epoch: the sync points of that array
  // the rank passed before it.
  for (const Rank &Rk : Ranks)
    for (const Step &St : Rk.Steps) {
      if (St.Sync || !St.Rq->Write || St.Array < 0)
        continue;
      int E = St.Epochs[static_cast<size_t>(St.Array)];
      auto &Levels = W[St.Array][E];
      if (Levels.empty()) {
        Levels.resize(2);
        Levels[0].resize(T.IoNodes.size());
        Levels[1].resize(T.StorageNodes.size());
      }
      BlockKey K{St.Rq->FileKey, St.Rq->Stripe};
      Levels[0][static_cast<size_t>(Rk.Io)][K]++;
      Levels[1][static_cast<size_t>(Rk.Storage)][K]++;
    }
  DropTable D;
  for (auto &AE : W)
    for (auto &EL : AE.second) {
      auto &Slot = D[AE.first];
      if (Slot.size() <= static_cast<size_t>(EL.first))
        Slot.resize(static_cast<size_t>(EL.first) + 1);
      auto &Lv = Slot[static_cast<size_t>(EL.first)];
      Lv.resize(2);
      for (int L = 0; L < 2; ++L) {
        std::vector<std::vector<std::pair<BlockKey, uint32_t>>> Per;
        for (const auto &Node : EL.second[static_cast<size_t>(L)])
          Per.emplace_back(Node.begin(), Node.end());
        Lv[static_cast<size_t>(L)] = levelDrops(Per);
      }
    }
  return D;
}

const std::vector<BlockKey> &dropsOf(const DropTable &D, int Array, int Epoch, int Level, int Node) {
  static const std::vector<BlockKey> None;
  auto It = D.find(Array);
  if (It == D.end() || static_cast<size_t>(Epoch) >= It->second.size() || It->second[static_cast<size_t>(Epoch)].empty())
    return None;
  return It->second[static_cast<size_t>(Epoch)][static_cast<size_t>(Level)][static_cast<size_t>(Node)];
}

} // namespace

std::string simulate(const Topology &T, const std::vector<TraceContents> &Traces, const SimOptions &O,
                     SimResult &Out) {
  if (Traces.size() != static_cast<size_t>(T.numRanks()))
    return "the topology's clients run " + std::to_string(T.numRanks()) + " ranks but " +
           std::to_string(Traces.size()) + " traces were given (one per rank, in rank order)";
  size_t Stripe = O.Stripe;
  for (const TraceContents &Tr : Traces)
    for (const TraceRequest &R : Tr.Requests)
      if (!O.Stripe && !R.Write)
        Stripe = std::max<size_t>(Stripe, R.Bytes);
  if (!Stripe)
    Stripe = T.Block ? T.Block : 64 << 10;
  // Arrays by name across traces.
  std::map<std::string, int> ArrayIds;
  std::vector<Rank> Ranks(Traces.size());
  SimResult Res;
  for (size_t K = 0; K < Traces.size(); ++K) {
    const TraceContents &Tr = Traces[K];
    Rank &Rk = Ranks[K];
    Rk.Client = T.clientOfRank(static_cast<int>(K));
    Rk.Io = T.Clients[static_cast<size_t>(Rk.Client)].IoNode;
    Rk.Storage = T.IoNodes[static_cast<size_t>(Rk.Io)].StorageNode;
    auto Global = [&](uint32_t Id) {
      std::string Name = Id < Tr.ArrayNames.size() ? Tr.ArrayNames[Id] : "#" + std::to_string(Id);
      return ArrayIds.emplace(Name, static_cast<int>(ArrayIds.size())).first->second;
    };
    SimClient C;
    C.Rank = static_cast<int>(K);
    std::set<std::pair<int, uint64_t>> Attached; // L1's floor: distinct stripes attached
    size_t R = 0;
    auto Flush = [&](uint64_t Upto) {
      for (; R < Tr.Requests.size() && Tr.Requests[R].After <= Upto; ++R) {
        Step St;
        St.Rq = &Tr.Requests[R];
        St.Array = Global(St.Rq->Array);
        Rk.Steps.push_back(St);
      }
    };
    for (size_t E = 0; E < Tr.Events.size(); ++E) {
      Flush(E);
      const TraceEvent &Ev = Tr.Events[E];
      if ((Ev.Kind & 0xf0) == TraceAttach) {
        C.L1Accesses++;
        C.L1Hits += Ev.Kind & TraceHit;
        Attached.insert({Global(Ev.Array), Ev.Stripe});
      } else if ((Ev.Kind & 0xf0) == TraceSync) {
        Step St;
        St.Sync = true;
        St.Array = Global(Ev.Array);
        Rk.Steps.push_back(St);
        Rk.Syncs[St.Array]++;
      }
    }
    Flush(~0ULL);
    Res.L1Compulsory += Attached.size();
    Res.Clients.push_back(C);
  }
  // Sync points passed before each step, per array.
  for (Rank &Rk : Ranks) {
    std::vector<int> Seen(ArrayIds.size(), 0);
    for (Step &St : Rk.Steps) {
      St.Epochs = Seen;
      if (St.Sync)
        Seen[static_cast<size_t>(St.Array)]++;
    }
  }
  DropTable Drops = dropTable(T, Ranks);
  Machine M(T, Stripe);
  if (std::string E = M.init(); !E.empty())
    return E;

  if (O.Recorded) {
    // L2 in each I/O node's arrival order, then L3 in each storage node's.
    struct Ref {
      uint32_t Seq;
      size_t Rank, Step;
    };
    std::vector<std::vector<Ref>> AtIo(T.IoNodes.size()), AtSt(T.StorageNodes.size());
    for (size_t K = 0; K < Ranks.size(); ++K)
      for (size_t S = 0; S < Ranks[K].Steps.size(); ++S) {
        const Step &St = Ranks[K].Steps[S];
        if (St.Sync)
          continue;
        if (!St.Rq->L2Seq)
          return "trace of rank " + std::to_string(K) +
                 " has transfers without arrival numbers: it was not recorded under IOPOLY_TOPOLOGY's servers "
                 "(use the clock order)";
        AtIo[static_cast<size_t>(Ranks[K].Io)].push_back({St.Rq->L2Seq, K, S});
      }
    std::vector<std::vector<int>> Level(Ranks.size());
    for (size_t K = 0; K < Ranks.size(); ++K)
      Level[K].assign(Ranks[K].Steps.size(), 0);
    auto Run = [&](std::vector<Ref> &Order, int Lv, int Node, CacheNode &Cache) {
      std::sort(Order.begin(), Order.end(), [](const Ref &A, const Ref &B) { return A.Seq < B.Seq; });
      std::vector<int> Applied(ArrayIds.size(), 0);
      for (const Ref &Rf : Order) {
        const Rank &Rk = Ranks[Rf.Rank];
        const Step &St = Rk.Steps[Rf.Step];
        // Epochs this rank has passed, applied before its request.
        for (const auto &AS : Rk.Syncs) {
          int A = AS.first;
          while (Applied[static_cast<size_t>(A)] < St.Epochs[static_cast<size_t>(A)]) {
            Cache.endEpoch(dropsOf(Drops, A, Applied[static_cast<size_t>(A)], Lv, Node), {});
            Applied[static_cast<size_t>(A)]++;
          }
        }
        BlockKey K{St.Rq->FileKey, St.Rq->Stripe};
        int &L = Level[Rf.Rank][Rf.Step];
        if (St.Rq->Write) {
          Cache.write(K, St.Rq->Bytes);
          L = 4;
        } else if (M.cacheable(*St.Rq) && Cache.read(K, St.Rq->Bytes)) {
          L = Lv == 0 ? 2 : 3;
        } else {
          L = Lv == 0 ? 3 : 4; // on to the next level
        }
      }
    };
    for (size_t N = 0; N < AtIo.size(); ++N)
      Run(AtIo[N], 0, static_cast<int>(N), M.L2[N]);
    for (size_t K = 0; K < Ranks.size(); ++K)
      for (size_t S = 0; S < Ranks[K].Steps.size(); ++S) {
        const Step &St = Ranks[K].Steps[S];
        if (St.Sync || Level[K][S] == 2)
          continue;
        if (!St.Rq->L3Seq) {
          ++Res.LevelMismatches;
          if (Res.FirstMismatch.empty())
            Res.FirstMismatch = "rank " + std::to_string(K) + ": stripe " + std::to_string(St.Rq->Stripe) +
                                " misses the I/O-node cache here but was served by it in the real run";
          continue;
        }
        AtSt[static_cast<size_t>(Ranks[K].Storage)].push_back({St.Rq->L3Seq, K, S});
      }
    for (size_t N = 0; N < AtSt.size(); ++N)
      Run(AtSt[N], 1, static_cast<int>(N), M.L3[N]);
    for (size_t K = 0; K < Ranks.size(); ++K)
      for (size_t S = 0; S < Ranks[K].Steps.size(); ++S) {
        const Step &St = Ranks[K].Steps[S];
        if (St.Sync)
          continue;
        int L = Level[K][S];
        if (L != St.Rq->Level) {
          ++Res.LevelMismatches;
          if (Res.FirstMismatch.empty())
            Res.FirstMismatch = "rank " + std::to_string(K) + ": stripe " + std::to_string(St.Rq->Stripe) +
                                " is served at level " + std::to_string(L) + " here, at level " +
                                std::to_string(St.Rq->Level) + " in the real run";
        }
        count(Res.Clients[K], *St.Rq, L);
        Res.Clients[K].IoSeconds += St.Rq->LatencyNs * 1e-9; // the real run's model
      }
    for (SimClient &C : Res.Clients)
      C.Clock = C.IoSeconds;
  } else {
    // Discrete events: the rank with the earliest clock goes next.
    std::vector<size_t> Pos(Ranks.size(), 0);
    std::vector<bool> Waiting(Ranks.size(), false);
    std::map<std::pair<int, int>, std::vector<size_t>> AtBarrier; // (array, epoch) -> ranks there
    std::map<int, std::set<size_t>> Members;
    for (size_t K = 0; K < Ranks.size(); ++K)
      for (const auto &AS : Ranks[K].Syncs)
        Members[AS.first].insert(K);
    using Item = std::pair<double, size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> Ready;
    for (size_t K = 0; K < Ranks.size(); ++K)
      Ready.push({0.0, K});
    while (!Ready.empty()) {
      auto [Now, K] = Ready.top();
      Ready.pop();
      Rank &Rk = Ranks[K];
      SimClient &C = Res.Clients[K];
      if (Pos[K] == Rk.Steps.size())
        continue;
      const Step &St = Rk.Steps[Pos[K]++];
      if (!St.Sync) {
        auto [L, Done] = M.serve(*St.Rq, Rk.Io, Now);
        count(C, *St.Rq, L);
        C.IoSeconds += Done - Now;
        C.Clock = Done;
        Ready.push({Done, K});
        continue;
      }
      // A barrier of the ranks that sync this array.
      int E = St.Epochs[static_cast<size_t>(St.Array)];
      auto &There = AtBarrier[{St.Array, E}];
      There.push_back(K);
      if (There.size() < Members[St.Array].size())
        continue;
      double Release = 0;
      for (size_t W : There)
        Release = std::max(Release, Res.Clients[W].Clock);
      for (size_t N = 0; N < M.L2.size(); ++N)
        M.L2[N].endEpoch(dropsOf(Drops, St.Array, E, 0, static_cast<int>(N)), {});
      for (size_t N = 0; N < M.L3.size(); ++N)
        M.L3[N].endEpoch(dropsOf(Drops, St.Array, E, 1, static_cast<int>(N)), {});
      for (size_t W : There) {
        Res.Clients[W].Clock = Release;
        Ready.push({Release, W});
      }
    }
    for (size_t K = 0; K < Ranks.size(); ++K)
      if (Pos[K] != Ranks[K].Steps.size())
        return "rank " + std::to_string(K) + " stopped at a sync point that not every rank with the array reached";
  }
  {
    std::vector<std::set<BlockKey>> AtIo(T.IoNodes.size()), AtSt(T.StorageNodes.size());
    std::set<BlockKey> All;
    for (const Rank &Rk : Ranks)
      for (const Step &St : Rk.Steps)
        if (!St.Sync && !St.Rq->Write) {
          BlockKey K{St.Rq->FileKey, St.Rq->Stripe};
          AtIo[static_cast<size_t>(Rk.Io)].insert(K);
          AtSt[static_cast<size_t>(Rk.Storage)].insert(K);
          All.insert(K);
        }
    for (const auto &S : AtIo)
      Res.L2Compulsory += S.size();
    for (const auto &S : AtSt)
      Res.L3Compulsory += S.size();
    Res.DiskCompulsory = All.size();
  }
  for (const SimClient &C : Res.Clients) {
    Res.L2.add(C.L2);
    Res.L3.add(C.L3);
    Res.Disk.add(C.Disk);
    Res.L1Accesses += C.L1Accesses;
    Res.L1Hits += C.L1Hits;
    Res.IoMeanSeconds += C.IoSeconds / static_cast<double>(Res.Clients.size());
    Res.IoMaxSeconds = std::max(Res.IoMaxSeconds, C.IoSeconds);
    Res.Makespan = std::max(Res.Makespan, C.Clock);
  }
  Out = std::move(Res);
  return "";
}

std::string SimResult::toJSON(bool PerClient) const {
  JsonWriter W;
  auto Level = [&](const char *Name, const LevelCounters &C) {
    W.key(Name).beginObject();
    W.key("reads").value(static_cast<unsigned long long>(C.Reads));
    W.key("hits").value(static_cast<unsigned long long>(C.Hits));
    W.key("misses").value(static_cast<unsigned long long>(C.Misses));
    W.key("miss_rate").value(C.Reads ? static_cast<double>(C.Misses) / C.Reads : 0.0);
    W.key("bytes_read").value(static_cast<unsigned long long>(C.BytesRead));
    W.key("writes").value(static_cast<unsigned long long>(C.Writes));
    W.key("bytes_written").value(static_cast<unsigned long long>(C.BytesWritten));
    W.endObject();
  };
  auto L1 = [&](uint64_t A, uint64_t H) {
    W.key("L1").beginObject();
    W.key("accesses").value(static_cast<unsigned long long>(A));
    W.key("hits").value(static_cast<unsigned long long>(H));
    W.key("misses").value(static_cast<unsigned long long>(A - H));
    W.key("miss_rate").value(A ? static_cast<double>(A - H) / A : 0.0);
    W.endObject();
  };
  W.beginObject();
  W.key("ranks").value(static_cast<unsigned long long>(Clients.size()));
  L1(L1Accesses, L1Hits);
  Level("L2", L2);
  Level("L3", L3);
  Level("disk", Disk);
  W.key("io_latency_mean_s").value(IoMeanSeconds);
  W.key("io_latency_max_s").value(IoMaxSeconds);
  W.key("makespan_s").value(Makespan);
  W.key("compulsory").beginObject();
  W.key("L1").value(static_cast<unsigned long long>(L1Compulsory));
  W.key("L2").value(static_cast<unsigned long long>(L2Compulsory));
  W.key("L3").value(static_cast<unsigned long long>(L3Compulsory));
  W.key("disk").value(static_cast<unsigned long long>(DiskCompulsory));
  W.endObject();
  W.key("level_mismatches").value(static_cast<unsigned long long>(LevelMismatches));
  W.key("first_mismatch").value(FirstMismatch);
  if (PerClient) {
    W.key("per_rank").beginArray();
    for (const SimClient &C : Clients) {
      W.beginObject();
      W.key("rank").value(static_cast<long long>(C.Rank));
      L1(C.L1Accesses, C.L1Hits);
      Level("L2", C.L2);
      Level("L3", C.L3);
      Level("disk", C.Disk);
      W.key("io_latency_s").value(C.IoSeconds);
      W.endObject();
    }
    W.endArray();
  }
  W.endObject();
  return W.str();
}

} // namespace iopoly
