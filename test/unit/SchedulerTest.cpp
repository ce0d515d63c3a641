//===- SchedulerTest.cpp - Locality sets as tasks on threads (paper 1 s.5) -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The scheduler of runtime/sched/: the policies' choices, the lock-step
// plan on the two-thread example of paper 1, Fig. 13, and the threaded
// executor on random task graphs (every dependence respected, G the OR of
// the running sets at every event, capacity respected, every set run once,
// no deadlock) at 1 to 8 threads under both policies. Runs under
// ThreadSanitizer (label "threads"). Seeds are fixed.
//
//===----------------------------------------------------------------------===//
#include "sched/Executor.h"
#include "sched/ModelClocks.h"
#include "sched/RunSets.h"
#include "sched/StepPlan.h"

#include "iopoly/abi.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>

using namespace iopoly;
using namespace iopoly::sched;

namespace {

DiskMap bits(const char *S) {
  DiskMap M;
  for (unsigned D = 0; S[D]; ++D)
    if (S[D] == '1')
      M.set(D);
  return M;
}

TEST(DiskMap, CountsSubsetsAndHamming) {
  DiskMap A = bits("1100"), B = bits("1110"), E;
  EXPECT_EQ(A.count(), 2u);
  EXPECT_TRUE(A.subsetOf(B));
  EXPECT_FALSE(B.subsetOf(A));
  EXPECT_TRUE(E.subsetOf(A));
  EXPECT_EQ(A.hamming(bits("0011")), 4u);
  DiskMap Far;
  Far.set(130);
  EXPECT_EQ(Far.hamming(A), 3u);
  EXPECT_EQ(Far.count(), 1u);
  EXPECT_EQ(bits("0101").str(4), "0101");
}

TEST(GlobalDiskMap, DiskLeavesWhenItsLastUserFinishes) {
  GlobalDiskMap G;
  G.start(bits("1100"));
  G.start(bits("0110"));
  EXPECT_EQ(G.map().str(4), "1110");
  G.finish(bits("1100"));
  EXPECT_EQ(G.map().str(4), "0110");
  G.finish(bits("0110"));
  EXPECT_TRUE(G.map().empty());
}

TaskGraph graphOf(std::initializer_list<const char *> Maps) {
  TaskGraph Gr;
  for (const char *M : Maps)
    Gr.Tasks.push_back({bits(M), 1, {}});
  return Gr;
}

TEST(PickGlobal, PrefersTheSetInsideGUsingMostOfIt) {
  TaskGraph Gr = graphOf({"1000", "1100", "0001", "1110"});
  // 0 and 1 lie inside G = 1101; 1 uses more of it. 3 is not inside.
  EXPECT_EQ(pickGlobal(Gr, {0, 1, 2, 3}, bits("1101")), 1u);
}

TEST(PickGlobal, ElseTheSetNearestToGThenTheEarliest) {
  TaskGraph Gr = graphOf({"0011", "1110", "0111", "0110"});
  // G = 1100: distances 4, 1, 3, 2.
  EXPECT_EQ(pickGlobal(Gr, {0, 1, 2, 3}, bits("1100")), 1u);
  // Ties go to the sequential order.
  TaskGraph Tie = graphOf({"0011", "0101"});
  EXPECT_EQ(pickGlobal(Tie, {1, 0}, bits("0001")), 0u);
}

TEST(PickOwnOrder, NearestToTheThreadsLastSet) {
  TaskGraph Gr = graphOf({"1100", "0011", "1000"});
  EXPECT_EQ(pickOwnOrder(Gr, {2, 1, 0}, DiskMap()), 0u);
  EXPECT_EQ(pickOwnOrder(Gr, {1, 2}, bits("1100")), 2u);
}

TEST(TaskGraph, RejectsCyclesAndBadEdges) {
  TaskGraph Gr = graphOf({"1", "1", "1"});
  EXPECT_TRUE(Gr.validate().ok());
  Gr.Tasks[1].Preds = {0};
  Gr.Tasks[2].Preds = {1};
  EXPECT_TRUE(Gr.validate().ok());
  Gr.Tasks[0].Preds = {2};
  Status S = Gr.validate();
  EXPECT_FALSE(S.ok());
  EXPECT_NE(S.message().find("cycle"), std::string::npos) << S.message();
  Gr.Tasks[0].Preds = {7};
  EXPECT_NE(Gr.validate().message().find("depends on set 7"), std::string::npos);
  Gr.Tasks[0].Preds = {0};
  EXPECT_NE(Gr.validate().message().find("itself"), std::string::npos);
}

/// Paper 1, Fig. 13: two threads, four disks, each thread with its own
/// LSG. The figure's graphs are not in the text; this example has the
/// properties the text gives: each thread alone follows a minimal-Hamming
/// order, and naively (b) steps 1 and 4 use all four disks, while the
/// schedule of Fig. 14 (c) never uses all four in one step.
/// Thread 0: a0=1100 -> a1=1000, a2=0001 -> a3=0011.
/// Thread 1: b0=0011 -> b1=0010, b2=1000 -> b3=1100.
TaskGraph fig13(std::vector<unsigned> &Owner) {
  TaskGraph Gr = graphOf({"1100", "1000", "0001", "0011", "0011", "0010", "1000", "1100"});
  Gr.Tasks[1].Preds = {0};
  Gr.Tasks[3].Preds = {2};
  Gr.Tasks[5].Preds = {4};
  Gr.Tasks[7].Preds = {6};
  Owner = {0, 0, 0, 0, 1, 1, 1, 1};
  return Gr;
}

std::vector<std::string> usage(const StepPlan &P) {
  std::vector<std::string> U;
  for (const DiskMap &M : P.Usage)
    U.push_back(M.str(4));
  return U;
}

TEST(Fig13, NaiveStepsOneAndFourUseEveryDisk) {
  std::vector<unsigned> Owner;
  TaskGraph Gr = fig13(Owner);
  StepPlan P = planSteps(Gr, Policy::Naive, 2, 0, Owner);
  std::vector<std::vector<int64_t>> Want = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
  EXPECT_EQ(P.Steps, Want);
  EXPECT_EQ(usage(P), (std::vector<std::string>{"1111", "1010", "1001", "1111"}));
}

TEST(Fig13, GlobalDiskMapNeverUsesEveryDisk) {
  std::vector<unsigned> Owner;
  TaskGraph Gr = fig13(Owner);
  StepPlan P = planSteps(Gr, Policy::Global, 2, 0, Owner);
  // Step 1: a2 (fewest disks, G empty), then b0 nearest to G = 0001;
  // step 2: a3 and b1 lie inside G = 0011; steps 3-4 move to 1100 once.
  std::vector<std::vector<int64_t>> Want = {{2, 4}, {3, 5}, {0, 6}, {1, 7}};
  EXPECT_EQ(P.Steps, Want);
  EXPECT_EQ(usage(P), (std::vector<std::string>{"0011", "0011", "1100", "1100"}));
}

TEST(StepPlan, CapacityKeepsBigSetsApart) {
  TaskGraph Gr = graphOf({"1000", "0100", "0010", "0001"});
  for (SetTask &T : Gr.Tasks)
    T.Stripes = 3;
  Gr.Tasks[3].Stripes = 9; // larger than the capacity: runs alone
  StepPlan P = planSteps(Gr, Policy::Global, 4, 8);
  for (const auto &Step : P.Steps) {
    uint64_t Sum = 0;
    unsigned N = 0;
    for (int64_t T : Step)
      if (T >= 0)
        Sum += Gr.Tasks[static_cast<size_t>(T)].Stripes, ++N;
    EXPECT_TRUE(Sum <= 8 || N == 1);
  }
}

/// A random graph of \p N sets over \p Disks disks: each set depends on a
/// few earlier ones (an LSG after cycle removal, in sequential order).
TaskGraph randomGraph(std::mt19937 &R, unsigned N, unsigned Disks, unsigned MaxStripes) {
  TaskGraph Gr;
  for (unsigned T = 0; T < N; ++T) {
    SetTask S;
    unsigned Width = 1 + R() % 3;
    unsigned First = R() % Disks;
    for (unsigned K = 0; K < Width; ++K)
      S.Disks.set((First + K) % Disks);
    S.Stripes = 1 + R() % MaxStripes;
    unsigned Deps = T ? R() % 3 : 0;
    for (unsigned K = 0; K < Deps; ++K) {
      uint32_t P = R() % T;
      if (std::find(S.Preds.begin(), S.Preds.end(), P) == S.Preds.end())
        S.Preds.push_back(P);
    }
    Gr.Tasks.push_back(S);
  }
  return Gr;
}

/// Replays the events: G is the OR of the running sets, the pinned
/// stripes their sum, within capacity unless one set runs alone.
void checkEvents(const TaskGraph &Gr, const ExecReport &Rep, uint64_t Capacity) {
  std::vector<uint32_t> Running;
  std::vector<bool> Finished(Gr.size());
  for (const ExecEvent &E : Rep.Events) {
    if (E.Start) {
      for (uint32_t P : Gr.Tasks[E.Set].Preds)
        ASSERT_TRUE(Finished[P]) << "set " << E.Set << " started before its predecessor " << P;
      Running.push_back(E.Set);
    } else {
      Running.erase(std::find(Running.begin(), Running.end(), E.Set));
      Finished[E.Set] = true;
    }
    DiskMap Or;
    uint64_t Pinned = 0;
    for (uint32_t T : Running)
      Or |= Gr.Tasks[T].Disks, Pinned += Gr.Tasks[T].Stripes;
    ASSERT_EQ(E.G, Or) << "G after set " << E.Set;
    ASSERT_EQ(E.Pinned, Pinned);
    ASSERT_EQ(E.Running, Running.size());
    if (Capacity)
      ASSERT_TRUE(Pinned <= Capacity || Running.size() == 1)
          << Pinned << " stripes pinned by " << Running.size() << " sets";
  }
  for (size_t T = 0; T < Gr.size(); ++T)
    ASSERT_TRUE(Finished[T]) << "set " << T << " never ran";
}

TEST(Executor, RandomGraphsRespectDependencesCapacityAndG) {
  std::mt19937 R(12);
  for (unsigned Round = 0; Round < 24; ++Round) {
    TaskGraph Gr = randomGraph(R, 20 + R() % 40, 8, 6);
    ASSERT_TRUE(Gr.validate().ok());
    for (unsigned Threads : {1u, 2u, 4u, 8u})
      for (Policy P : {Policy::Global, Policy::Naive}) {
        ExecOptions O;
        O.Kind = P;
        O.Threads = Threads;
        O.Capacity = Round % 3 ? 10 : 0;
        O.RecordEvents = true;
        // The body checks the dependences on its own too (atomics, no lock).
        std::vector<std::atomic<int>> Runs(Gr.size());
        std::atomic<unsigned> Bad{0};
        ExecReport Rep = runTaskGraph(Gr, O, [&](uint32_t T, unsigned K) {
          EXPECT_LT(K, Threads);
          for (uint32_t Pr : Gr.Tasks[T].Preds)
            if (Runs[Pr].load(std::memory_order_acquire) != 1)
              ++Bad;
          if (T % 5 == 0)
            std::this_thread::sleep_for(std::chrono::microseconds(50));
          Runs[T].fetch_add(1, std::memory_order_release);
        });
        EXPECT_EQ(Bad.load(), 0u);
        for (auto &N : Runs)
          EXPECT_EQ(N.load(), 1);
        EXPECT_EQ(Rep.Starts, Gr.size());
        EXPECT_LE(Rep.MaxRunning, Threads);
        checkEvents(Gr, Rep, O.Capacity);
        if (Threads == 1) {
          // One thread: the sequential order.
          uint32_t Next = 0;
          for (const ExecEvent &E : Rep.Events)
            if (E.Start)
              EXPECT_EQ(E.Set, Next++);
        }
      }
  }
}

TEST(Executor, IndependentSetsRunConcurrently) {
  // Four sets with no dependence, each waiting until all four have
  // started: finishes only if four threads run them at once.
  TaskGraph Gr = graphOf({"1000", "0100", "0010", "0001"});
  std::atomic<unsigned> Started{0};
  ExecOptions O;
  O.Threads = 4;
  ExecReport Rep = runTaskGraph(Gr, O, [&](uint32_t, unsigned) {
    ++Started;
    while (Started.load() < 4)
      std::this_thread::yield();
  });
  EXPECT_EQ(Rep.MaxRunning, 4u);
  EXPECT_EQ(Rep.DisksInUseMax, 4u);
}

TEST(Executor, ASetLargerThanTheBufferRunsAlone) {
  TaskGraph Gr = graphOf({"1000", "0100", "0010", "0001"});
  Gr.Tasks[2].Stripes = 100;
  ExecOptions O;
  O.Threads = 4;
  O.Capacity = 10;
  O.RecordEvents = true;
  ExecReport Rep = runTaskGraph(Gr, O, [](uint32_t, unsigned) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  });
  for (const ExecEvent &E : Rep.Events)
    if (E.Pinned > 10)
      EXPECT_EQ(E.Running, 1u);
  checkEvents(Gr, Rep, 10);
}

namespace {

/// Runs \p Gr on \p Threads threads; set K fetches one stripe of disk K
/// and waits for it (modeled). Returns the caller's modeled clock.
double modeledRun(const TaskGraph &Gr, unsigned Threads, DiskModel &M, bool AllStartTogether) {
  ModelClocks Clocks(M);
  std::mutex ModelMu; // the stripe buffer's lock, in the runtime
  std::atomic<unsigned> Started{0};
  ExecOptions O;
  O.Threads = Threads;
  O.Clocks = &Clocks;
  runTaskGraph(Gr, O, [&](uint32_t T, unsigned) {
    ++Started;
    while (AllStartTogether && Started.load() < Gr.size())
      std::this_thread::yield();
    std::lock_guard<std::mutex> L(ModelMu);
    DiskModel::Request R = M.submit(T, /*FileId=*/T, /*Offset=*/0, 4096, M.appClock());
    M.waitUntil(R.Done);
  });
  return M.appClock();
}

} // namespace

TEST(Executor, ThreadsWaitForDisksInParallelOnTheModeledClock) {
  // Four independent sets on four disks: their fetches overlap, so the run
  // takes one service time; every thread's waits sum to four.
  DiskModelParams P;
  ASSERT_TRUE(parseDiskModel("hdd", P).ok());
  DiskModel M(P, 4);
  double One = M.serviceTime(4096, false);
  double Elapsed = modeledRun(graphOf({"1000", "0100", "0010", "0001"}), 4, M, true);
  EXPECT_NEAR(One, Elapsed, 1e-9);
  EXPECT_NEAR(4 * One, M.waitSeconds(), 1e-6);
}

TEST(Executor, ASetStartsOnTheModeledClockWhenItsPredecessorEnded) {
  // 0 -> 1 -> 2 on three threads: whichever thread runs a set, it waits for
  // the one before it, so the run takes three service times.
  DiskModelParams P;
  ASSERT_TRUE(parseDiskModel("hdd", P).ok());
  DiskModel M(P, 4);
  TaskGraph Gr = graphOf({"1000", "0100", "0010"});
  Gr.Tasks[1].Preds = {0};
  Gr.Tasks[2].Preds = {1};
  double Elapsed = modeledRun(Gr, 3, M, false);
  EXPECT_NEAR(3 * M.serviceTime(4096, false), Elapsed, 1e-9);
}

TEST(SetTable, ChecksWhatCompiledCodePasses) {
  uint64_t Disks[3] = {0x1, 0x2, 0x3};
  uint32_t Start[4] = {0, 0, 1, 3};
  uint32_t Preds[3] = {0, 0, 1};
  iopoly_set_table T = {IOPOLY_SET_ABI, 3, 1, 0, Disks, nullptr, Start, Preds, "t.c:1"};
  TaskGraph Gr;
  ASSERT_TRUE(graphOfTable(T, Gr).ok());
  EXPECT_EQ(Gr.Tasks[2].Preds, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(Gr.Tasks[2].Disks.str(2), "11");
  Preds[2] = 2;
  EXPECT_NE(graphOfTable(T, Gr).message().find("does not come before"), std::string::npos);
  T.abi = 99;
  EXPECT_NE(graphOfTable(T, Gr).message().find("ABI 99"), std::string::npos);
}

} // namespace
