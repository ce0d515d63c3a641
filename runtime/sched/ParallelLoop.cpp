//===- ParallelLoop.cpp - Parallel loops of restructured code as tasks ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "sched/ParallelLoop.h"
#include "core/Config.h"
#include "core/Runtime.h"
#include "lowered/Lowered.h"
#include "lowered/TileWalk.h"
#include "sched/Policy.h"
#include "sched/RunSets.h"
#include "TileChoice.h"

#include "iopoly/abi.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include <pthread.h>

namespace iopoly::sched {

namespace {

thread_local uint64_t RegionUnit = 0, RegionNeed = 0;

using SteadyClock = std::chrono::steady_clock;

/// A thread takes consecutive iterations together (a chunk, whose disk map
/// is the union of theirs) where one iteration is short: one hand-out (the team's mutex, the
/// policy's scan, waking the others) costs microseconds, and the sweeps
/// kernel's parallel loops (inner loops of its tiles, 290 iterations of
/// well under a microsecond each, 1,152 loops) took 4.2x the single
/// thread's wall time at 8 threads on 2 cores, one iteration at a time. A
/// chunk is sized to take about ChunkSeconds by the iterations timed so
/// far (of this loop, else of earlier runs of the same outlined loop), and
/// to leave each thread at least four chunks. Iterations that read from
/// the disks take long and stay one per hand-out: the scheduler still
/// chooses each locality set.
constexpr double ChunkSeconds = 100e-6;
/// A loop whose iterations, as timed in earlier runs of it, take less than
/// this in all runs on the calling thread alone: waking the helpers and
/// waiting for them costs more than it saves (the sweeps kernel's loops of
/// about 150 microseconds each).
constexpr double SoloSeconds = 500e-6;

/// Seconds per iteration of each outlined loop, measured by earlier runs.
std::mutex IterCostMu;
std::unordered_map<void (*)(void *), double> &iterCost() {
  static auto *M = new std::unordered_map<void (*)(void *), double>; // read at exit by late loops
  return *M;
}

/// One parallel loop being run: its iterations are the tasks.
struct Team {
  void (*Fn)(void *) = nullptr;
  void *Data = nullptr;
  long Start = 0, Incr = 1;
  TaskGraph Graph;
  Policy Kind = Policy::Global;
  unsigned Threads = 1;    // that run this loop
  unsigned Configured = 1; // IOPOLY_THREADS (the statistics report it)
  uint64_t Capacity = 0;
  uint64_t WalkUnit = 0; // the forking thread's tile walk (lowered/TileWalk.h)
  std::vector<unsigned> Owner;
  std::vector<uint32_t> MapOf; // each task's disk map, numbered
  uint32_t NumMaps = 0;

  std::mutex Mu;
  std::condition_variable Wake;
  std::vector<uint32_t> Ready; // not started, in order
  std::vector<DiskMap> Last;
  DiskMap LastFinished;
  GlobalDiskMap G;
  uint64_t Pinned = 0;
  unsigned Running = 0;
  RunTotals Stats;
  // Wall time of the iterations run so far (chunks, ParallelLoop.cpp top).
  double IterSeconds = 0;   // measured before this loop (0: unknown)
  double TimedSeconds = 0;  // of this loop's finished chunks
  uint64_t TimedIters = 0;
  bool Pooled = false;              // the helpers are the pool's
  std::vector<std::thread> Workers; // or threads of their own
  // Modeled time (ModelClocks.h): the caller's clock when the loop started,
  // the latest end of an iteration, and the latest clock of a helper.
  // Iterations go to threads as they come free in real time, not in the
  // order of their modeled clocks as locality sets do (Executor.cpp): a
  // loop hands out many small iterations (stencil: 9,200 at 8 threads),
  // and making each wait for the thread whose clock is earliest took the
  // stencil kernel from 1.8x to 12x the single thread's wall time on 2
  // cores.
  DiskModel *Model = nullptr;
  double Forked = 0, LatestEnd = 0, Joined = 0;
  // The caller's state, restored at the end (a parallel loop inside a task).
  Team *Outer = nullptr;
  unsigned OuterIndex = 0;
  int64_t OuterRunning = -1;
  uint32_t OuterCount = 0;
  DiskMap OuterDisks;
  SteadyClock::time_point OuterSince;
};

/// Helper threads kept from one parallel loop to the next: starting seven
/// threads for each of the sweeps kernel's 1,152 loops (8 threads) was
/// much of its wall time. One loop at a time uses it; a loop that starts
/// while another runs (the program's own threads) starts threads of its
/// own.
class HelperPool {
public:
  /// Runs \p Job(K) on helpers K = 1 .. \p N - 1; false if the pool is in
  /// use (nothing is run then).
  bool start(unsigned N, std::function<void(unsigned)> Job) {
    std::unique_lock<std::mutex> L(Mu);
    if (Busy)
      return false;
    Busy = true;
    this->Job = std::move(Job);
    Helpers = N - 1;
    Pending = Helpers;
    ++Generation;
    for (; Threads < Helpers; ++Threads)
      std::thread(&HelperPool::loop, this, Threads + 1).detach();
    Wake.notify_all();
    return true;
  }
  /// Waits for the helpers of the last start to finish their jobs.
  void wait() {
    std::unique_lock<std::mutex> L(Mu);
    Done.wait(L, [&] { return Pending == 0; });
    Job = nullptr;
    Busy = false;
  }

private:
  void loop(unsigned K) {
    uint64_t Seen = 0;
    std::unique_lock<std::mutex> L(Mu);
    for (;;) {
      Wake.wait(L, [&] { return Generation != Seen; });
      Seen = Generation;
      if (K > Helpers)
        continue;
      std::function<void(unsigned)> &Run = Job;
      L.unlock();
      Run(K);
      L.lock();
      if (--Pending == 0)
        Done.notify_all();
    }
  }

  std::mutex Mu;
  std::condition_variable Wake, Done;
  std::function<void(unsigned)> Job;
  uint64_t Generation = 0;
  unsigned Threads = 0, Helpers = 0, Pending = 0;
  bool Busy = false;
};

/// The pool, never destroyed: its idle threads wait until the process
/// ends. A child of fork() gets a new one (the parent's threads are not in
/// the child).
HelperPool *Pool = [] {
  pthread_atfork(nullptr, nullptr, [] { Pool = new HelperPool; });
  return new HelperPool;
}();

thread_local Team *Current = nullptr;
thread_local unsigned ThreadIndex = 0;
thread_local int64_t Running = -1; // this thread's iteration in progress (the first of its chunk)
thread_local uint32_t RunningCount = 0; // iterations in its chunk
thread_local DiskMap RunningDisks;      // the disks of its chunk
thread_local SteadyClock::time_point RunningSince;

/// Iterations per hand-out for a loop with \p Left iterations not started.
uint32_t chunkSize(const Team &T, size_t Left) {
  double PerIter = T.TimedIters ? T.TimedSeconds / static_cast<double>(T.TimedIters) : T.IterSeconds;
  if (PerIter <= 0)
    return 1;
  double Want = std::ceil(ChunkSeconds / PerIter);
  double Fair = std::max<double>(1, std::floor(static_cast<double>(Left) / (4.0 * std::max(1u, T.Threads))));
  return static_cast<uint32_t>(std::max(1.0, std::min({Want, Fair, 65536.0})));
}

void finishCurrent(Team &T) {
  if (Running < 0)
    return;
  // The task's loops are over: its windows' stripes go back to the buffer
  // (the windows translate again in the next task), so that the capacity
  // rule counts what running tasks really pin.
  releaseAllThreadWindows();
  const SetTask &S = T.Graph.Tasks[static_cast<size_t>(Running)];
  DiskMap Disks = std::move(RunningDisks);
  double Took = std::chrono::duration<double>(SteadyClock::now() - RunningSince).count();
  std::lock_guard<std::mutex> L(T.Mu);
  T.TimedSeconds += Took;
  T.TimedIters += RunningCount;
  T.LatestEnd = std::max(T.LatestEnd, T.Model->appClock());
  T.G.finish(Disks);
  T.Pinned -= std::max<uint64_t>(1, S.Stripes);
  --T.Running;
  T.LastFinished = Disks;
  T.Last[ThreadIndex] = Disks;
  Running = -1;
  T.Wake.notify_all();
}

/// The next iteration of thread ThreadIndex, or -1 when none is left, and
/// in \p Count how many consecutive iterations it takes (a chunk), in
/// \p Disks their disks; \p Room: whether the buffer holds another task beside the
/// running ones; \p RunningNow: the tasks running, the one taken included.
int64_t takeNext(Team &T, bool &Room, unsigned &RunningNow, uint32_t &Count, DiskMap &Disks) {
  std::unique_lock<std::mutex> L(T.Mu);
  for (;;) {
    std::vector<uint32_t> Mine;
    bool Left = false;
    // Of the ready tasks with one disk map, only the first (the policies
    // take the lowest index among equals), and the scan stops once every
    // map has one: a loop's units repeat their maps every few iterations,
    // and choosing among all of them each time was a third of the sweeps
    // kernel's time at 8 threads (1,152 loops of about 290 iterations).
    std::vector<char> Have(T.NumMaps, 0);
    uint32_t Had = 0;
    for (uint32_t I : T.Ready) {
      if (!T.Owner.empty() && T.Owner[I] != ThreadIndex)
        continue;
      Left = true;
      const SetTask &S = T.Graph.Tasks[I];
      uint64_t Need = std::max<uint64_t>(1, S.Stripes);
      // Another task starts only while the running tasks' tiles and its
      // own fill at most half the buffer: the other half is for what they
      // read ahead. With the whole buffer, three of matmul's tiles at 1/32
      // of its data (4 KiB stripes) left no frame for their hints, which
      // were pushed out before use until the walk stopped hinting: 3.1x
      // to 3.5x the single thread's modeled I/O on hdd, 1.07x with this
      // rule.
      if (T.Running && T.Capacity && !tasksFitHalfBuffer(T.Pinned + Need, T.Capacity))
        continue;
      char &Taken = Have[T.MapOf[I]];
      if (Taken)
        continue;
      Taken = 1;
      ++Had;
      Mine.push_back(I);
      if (Had == T.NumMaps)
        break;
    }
    if (!Left)
      return -1;
    if (Mine.empty()) {
      ++T.Stats.CapacityWaits;
      T.Wake.wait(L);
      // Room was made by an iteration that ended (modeled) at LatestEnd.
      T.Model->waitUntil(T.LatestEnd);
      continue;
    }
    uint32_t I = T.Threads <= 1                ? Mine.front()
                 : T.Kind == Policy::Global    ? pickGlobal(T.Graph, Mine, T.Running ? T.G.map() : T.LastFinished)
                                               : pickOwnOrder(T.Graph, Mine, T.Last[ThreadIndex]);
    auto At = T.Ready.erase(std::find(T.Ready.begin(), T.Ready.end(), I));
    // The chunk: the iterations after it while they are ready and this
    // thread's (they run one after the other: one tile at a time is live).
    Count = 1;
    Disks = T.Graph.Tasks[I].Disks;
    for (uint32_t Max = chunkSize(T, T.Ready.size() + 1); Count < Max && At != T.Ready.end() && *At == I + Count &&
                                                           (T.Owner.empty() || T.Owner[*At] == ThreadIndex);) {
      Disks |= T.Graph.Tasks[*At].Disks;
      At = T.Ready.erase(At), ++Count;
    }
    const SetTask &S = T.Graph.Tasks[I];
    T.G.start(Disks);
    T.Pinned += std::max<uint64_t>(1, S.Stripes);
    ++T.Running;
    unsigned InUse = T.G.map().count();
    T.Stats.Sets += Count;
    ++T.Stats.Handouts;
    T.Stats.DisksInUseSum += InUse;
    T.Stats.DisksInUseMax = std::max(T.Stats.DisksInUseMax, InUse);
    T.Stats.MaxRunning = std::max(T.Stats.MaxRunning, T.Running);
    T.Stats.MaxPinned = std::max(T.Stats.MaxPinned, T.Pinned);
    Room = !T.Capacity || T.Pinned + std::max<uint64_t>(1, S.Stripes) <= T.Capacity;
    RunningNow = T.Running;
    return I;
  }
}

} // namespace

void noteTiledRegion(uint64_t UnitBytes, uint64_t NeedStripes) {
  RegionUnit = UnitBytes;
  RegionNeed = NeedStripes;
}

} // namespace iopoly::sched

using namespace iopoly;
using namespace iopoly::sched;

extern "C" void __iopoly_par_start(void (*Fn)(void *), void *Data, unsigned, long Start, long End, long Incr) {
  Runtime *RT = nullptr;
  if (Status S = Runtime::get(RT))
    fatal(S.message());
  const Config &C = RT->config();
  if (Incr <= 0)
    fatal(format("__iopoly_par_start: step %ld of a parallel loop is not positive", Incr));
  auto *T = new Team;
  T->Fn = Fn;
  {
    std::lock_guard<std::mutex> L(IterCostMu);
    auto It = iterCost().find(Fn);
    T->IterSeconds = It == iterCost().end() ? 0 : It->second;
  }
  T->Data = Data;
  T->Start = Start;
  T->Incr = Incr;
  uint64_t N = End > Start ? static_cast<uint64_t>((End - Start + Incr - 1) / Incr) : 0;
  // A parallel loop inside a task (nested) runs on its thread alone.
  T->Configured = threadsToUse(C);
  T->Threads = Current ? 1 : T->Configured;
  if (T->IterSeconds > 0 && T->IterSeconds * static_cast<double>(N) < SoloSeconds)
    T->Threads = 1;
  if (Status S = parsePolicy(C.Sched, T->Kind))
    fatal("IOPOLY_SCHED=" + C.Sched + ": " + S.message());
  T->Capacity = C.bufferFrames();
  T->Model = &RT->model();
  T->Forked = T->LatestEnd = T->Model->appClock();
  size_t Stripe = C.StripeSize, Disks = std::max<size_t>(1, C.numDisks());
  T->Graph.Tasks.resize(N);
  for (uint64_t I = 0; I < N; ++I) {
    SetTask &S = T->Graph.Tasks[I];
    // Unknown footprint (a loop in its original order): the whole buffer,
    // so that such tasks run one at a time and never fill it together.
    S.Stripes = RegionUnit && RegionNeed ? RegionNeed : std::max<uint64_t>(1, T->Capacity);
    long V = Start + static_cast<long>(I) * Incr;
    if (RegionUnit && V >= 0) {
      uint64_t First = static_cast<uint64_t>(V) * RegionUnit / Stripe;
      uint64_t Last = (static_cast<uint64_t>(V + 1) * RegionUnit - 1) / Stripe;
      for (uint64_t K = First; K <= Last && K < First + Disks; ++K)
        S.Disks.set(static_cast<unsigned>(K % Disks));
    }
    T->Ready.push_back(static_cast<uint32_t>(I));
  }
  std::map<std::vector<uint64_t>, uint32_t> Numbered;
  T->MapOf.resize(N);
  for (uint64_t I = 0; I < N; ++I) {
    const DiskMap &M = T->Graph.Tasks[I].Disks;
    std::vector<uint64_t> Key(M.numWords());
    for (size_t W = 0; W < Key.size(); ++W)
      Key[W] = M.word(W);
    T->MapOf[I] = Numbered.emplace(std::move(Key), static_cast<uint32_t>(Numbered.size())).first->second;
  }
  T->NumMaps = static_cast<uint32_t>(Numbered.size());
  T->Last.resize(T->Threads);
  if (T->Kind == Policy::Naive)
    T->Owner = contiguousShares(N, T->Threads);
  // The caller is thread 0: it calls Fn itself after this returns.
  T->Outer = Current;
  T->OuterIndex = ThreadIndex;
  T->OuterRunning = Running;
  T->OuterCount = RunningCount;
  T->OuterDisks = RunningDisks;
  T->OuterSince = RunningSince;
  // Every thread walks the region's units as the forking thread does, each
  // task a tile (its stripes hinted as it enters them).
  T->WalkUnit = TileWalkUnit;
  auto Helper = [T](unsigned K) {
    Current = T;
    ThreadIndex = K;
    Running = -1;
    tileWalkBegin(T->WalkUnit);
    T->Model->enterThread(T->Forked);
    T->Fn(T->Data);
    finishCurrent(*T);
    tileWalkBegin(0);
    double Clock = T->Model->leaveThread();
    {
      std::lock_guard<std::mutex> L(T->Mu);
      T->Joined = std::max(T->Joined, Clock);
    }
    Current = nullptr;
  };
  try {
    if (T->Threads > 1)
      T->Pooled = Pool->start(T->Threads, Helper);
    for (unsigned K = 1; K < T->Threads && !T->Pooled; ++K)
      T->Workers.emplace_back(Helper, K);
  } catch (const std::system_error &E) {
    // The tasks are shared out among all the threads: the loop cannot run
    // on fewer.
    fatal(format("cannot start the %u threads of a parallel loop (IOPOLY_THREADS): %s", T->Threads, E.what()));
  }
  Current = T;
  ThreadIndex = 0;
  Running = -1;
}

extern "C" bool __iopoly_par_next(long *Lo, long *Hi) {
  Team *T = Current;
  if (!T)
    fatal("__iopoly_par_next outside a parallel loop");
  finishCurrent(*T);
  bool Room = false;
  unsigned RunningNow = 1;
  uint32_t Count = 1;
  DiskMap Disks;
  int64_t I = takeNext(*T, Room, RunningNow, Count, Disks);
  if (I < 0)
    return false;
  Running = I;
  RunningCount = Count;
  RunningDisks = std::move(Disks);
  RunningSince = SteadyClock::now();
  tileWalkTaskBegin(/*LookAhead=*/Room, RunningNow);
  *Lo = T->Start + static_cast<long>(I) * T->Incr;
  *Hi = *Lo + static_cast<long>(Count) * T->Incr;
  return true;
}

extern "C" void __iopoly_par_end_nowait(void) {
  if (Current)
    finishCurrent(*Current);
}

extern "C" void __iopoly_par_end(void) {
  Team *T = Current;
  if (!T)
    fatal("__iopoly_par_end outside a parallel loop");
  finishCurrent(*T);
  if (T->Pooled)
    Pool->wait();
  for (std::thread &W : T->Workers)
    W.join();
  T->Model->waitUntil(T->Joined);
  if (T->TimedIters) {
    std::lock_guard<std::mutex> L(IterCostMu);
    iterCost()[T->Fn] = T->TimedSeconds / static_cast<double>(T->TimedIters);
  }
  if (!T->Outer)
    tileWalkBegin(T->WalkUnit); // the caller's walk goes on sequentially
  T->Stats.Regions = 1;
  addRunTotals(T->Configured, policyName(T->Kind), T->Stats);
  Current = T->Outer;
  ThreadIndex = T->OuterIndex;
  Running = T->OuterRunning;
  RunningCount = T->OuterCount;
  RunningDisks = T->OuterDisks;
  RunningSince = T->OuterSince;
  delete T;
}
