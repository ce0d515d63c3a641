//===- Executor.cpp - Running locality sets on threads --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "sched/Executor.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace iopoly::sched {

namespace {

class Run {
public:
  Run(const TaskGraph &Graph, const ExecOptions &O, const std::function<void(uint32_t, unsigned)> &Body)
      : Graph(Graph), O(O), Body(Body), Succ(Graph.successors()), Pending(Graph.size()),
        Last(std::max(1u, O.Threads)) {
    Owner = O.Owner;
    if (Owner.empty() && O.Kind == Policy::Naive)
      Owner = contiguousShares(Graph.size(), std::max(1u, O.Threads));
    for (uint32_t T = 0; T < Graph.size(); ++T)
      if (!(Pending[T] = static_cast<uint32_t>(Graph.Tasks[T].Preds.size())))
        Ready.push_back(T);
    if (O.Clocks)
      Forked = LatestEnd = O.Clocks->now();
    End.assign(Graph.size(), Forked);
    unsigned N = std::max(1u, O.Threads);
    Clock.assign(N, Forked);
    Busy.assign(N, 0);
    Exited.assign(N, 0);
  }

  void worker(unsigned K) {
    if (O.Clocks && K)
      O.Clocks->enter(Forked);
    std::unique_lock<std::mutex> L(Mu);
    bool Waited = false; // for room in the buffer
    for (;;) {
      if (Done == Graph.size())
        break;
      if (O.Clocks && behindAnother(K)) {
        // Modeled time: a thread that became free earlier takes first.
        Wake.notify_all();
        Wake.wait(L);
        continue;
      }
      uint64_t Waits = Rep.CapacityWaits;
      int64_t T = choose(K);
      if (T < 0) {
        Waited |= Rep.CapacityWaits != Waits;
        Wake.wait(L);
        continue;
      }
      const SetTask &S = Graph.Tasks[static_cast<size_t>(T)];
      if (O.Clocks) {
        double ReadyAt = Waited ? LatestEnd : Forked;
        for (uint32_t P : S.Preds)
          ReadyAt = std::max(ReadyAt, End[P]);
        O.Clocks->waitUntil(ReadyAt);
      }
      Busy[K] = 1;
      if (O.Clocks)
        Wake.notify_all(); // threads that let this one go first
      Waited = false;
      uint64_t Need = std::max<uint64_t>(1, S.Stripes);
      Ready.erase(std::find(Ready.begin(), Ready.end(), static_cast<uint32_t>(T)));
      G.start(S.Disks);
      Pinned += Need;
      ++Running;
      ++Rep.Starts;
      unsigned InUse = G.map().count();
      Rep.DisksInUseSum += InUse;
      Rep.DisksInUseMax = std::max(Rep.DisksInUseMax, InUse);
      Rep.MaxRunning = std::max(Rep.MaxRunning, Running);
      Rep.MaxPinned = std::max(Rep.MaxPinned, Pinned);
      record(static_cast<uint32_t>(T), K, true);
      L.unlock();
      Body(static_cast<uint32_t>(T), K);
      L.lock();
      if (O.Clocks) {
        End[static_cast<size_t>(T)] = Clock[K] = O.Clocks->now();
        LatestEnd = std::max(LatestEnd, End[static_cast<size_t>(T)]);
      }
      Busy[K] = 0;
      G.finish(S.Disks);
      Pinned -= Need;
      --Running;
      LastFinished = S.Disks;
      Last[K] = S.Disks;
      ++Done;
      for (uint32_t N : Succ[static_cast<size_t>(T)])
        if (!--Pending[N])
          Ready.push_back(N);
      record(static_cast<uint32_t>(T), K, false);
      Wake.notify_all();
    }
    Exited[K] = 1;
    Wake.notify_all();
    L.unlock();
    if (O.Clocks && K)
      O.Clocks->leave();
  }

  ExecReport take() { return std::move(Rep); }
  /// When the last set ended (modeled).
  double latestEnd() const { return LatestEnd; }

private:
  /// Whether thread \p J may run ready set \p T (the policy's owner).
  bool owns(unsigned J, uint32_t T) const { return Owner.empty() || Owner[T] == J; }
  /// Whether set \p T's stripes fit beside those pinned by running sets.
  bool fits(uint32_t T) const {
    return !(Running && O.Capacity && Pinned + std::max<uint64_t>(1, Graph.Tasks[T].Stripes) > O.Capacity);
  }
  /// Whether thread \p J could start a set now (without choosing it).
  bool hasWork(unsigned J) const {
    for (uint32_t T : Ready)
      if (owns(J, T) && fits(T))
        return true;
    return false;
  }

  /// Whether another free thread whose modeled clock is earlier than \p K's
  /// (ties: the lower index) could start a set: it goes first, as it would
  /// on threads that truly run at once. (A busy thread does not hold the
  /// others back: a set may start later, modeled, than it could have.)
  bool behindAnother(unsigned K) const {
    for (unsigned J = 0; J < Clock.size(); ++J)
      if (J != K && !Busy[J] && !Exited[J] && (Clock[J] < Clock[K] || (Clock[J] == Clock[K] && J < K)) &&
          hasWork(J))
        return true;
    return false;
  }

  /// The set thread \p K starts now, or -1 (nothing it may start).
  int64_t choose(unsigned K) {
    std::vector<uint32_t> Mine;
    bool Blocked = false;
    for (uint32_t T : Ready) {
      if (!owns(K, T))
        continue;
      if (!fits(T)) {
        Blocked = true;
        continue;
      }
      Mine.push_back(T);
    }
    if (Mine.empty()) {
      Rep.CapacityWaits += Blocked;
      return -1;
    }
    if (O.Threads <= 1)
      return *std::min_element(Mine.begin(), Mine.end()); // the sequential order
    if (O.Kind == Policy::Global)
      return pickGlobal(Graph, Mine, Running ? G.map() : LastFinished);
    return pickOwnOrder(Graph, Mine, Last[K]);
  }

  void record(uint32_t T, unsigned K, bool Start) {
    if (O.RecordEvents)
      Rep.Events.push_back({T, K, Start, G.map(), Pinned, Running});
  }

  const TaskGraph &Graph;
  const ExecOptions &O;
  const std::function<void(uint32_t, unsigned)> &Body;
  std::vector<std::vector<uint32_t>> Succ;
  std::vector<unsigned> Owner;

  std::mutex Mu;
  std::condition_variable Wake;
  std::vector<uint32_t> Pending, Ready;
  std::vector<DiskMap> Last;
  DiskMap LastFinished;
  GlobalDiskMap G;
  uint64_t Pinned = 0;
  unsigned Running = 0;
  size_t Done = 0;
  ExecReport Rep;
  double Forked = 0, LatestEnd = 0; ///< modeled: the caller's clock at the start; the last end
  std::vector<double> End;          ///< modeled end of each set
  std::vector<double> Clock;        ///< modeled clock of each thread when it last finished a set
  std::vector<char> Busy, Exited;   ///< each thread runs a set; has left
};

} // namespace

ExecReport runTaskGraph(const TaskGraph &Graph, const ExecOptions &Options,
                        const std::function<void(uint32_t Set, unsigned Thread)> &Body) {
  Run R(Graph, Options, Body);
  unsigned Threads = std::max(1u, Options.Threads);
  std::vector<std::thread> Helpers;
  for (unsigned K = 1; K < Threads; ++K)
    Helpers.emplace_back([&R, K] { R.worker(K); });
  R.worker(0);
  for (std::thread &H : Helpers)
    H.join();
  if (Options.Clocks)
    Options.Clocks->waitUntil(R.latestEnd());
  return R.take();
}

} // namespace iopoly::sched
