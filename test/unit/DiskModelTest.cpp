//===- DiskModelTest.cpp - The deterministic disk model -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One FIFO queue per disk, requests on different disks overlap, a request
// that continues the previous one on its disk pays the sequential latency,
// a model "none" costs nothing, and the same requests always give the same
// times.
//
//===----------------------------------------------------------------------===//
#include "io/DiskModel.h"

#include <gtest/gtest.h>

#include <random>

using namespace iopoly;

namespace {

// 10 ms random, 1 ms sequential positioning, 1 MiB/s: a 1 MiB request costs
// 1.01 s random or 1.001 s sequential.
DiskModelParams params() {
  DiskModelParams P;
  Status S = parseDiskModel("latency=10ms,seq=1ms,bw=1M", P);
  EXPECT_TRUE(S.ok()) << S.message();
  return P;
}
constexpr size_t MiB = 1 << 20;
constexpr double Random = 0.01 + 1.0, Seq = 0.001 + 1.0;

} // namespace

TEST(DiskModel, ServiceTimeIsPositioningPlusTransfer) {
  DiskModel M(params(), 2);
  EXPECT_DOUBLE_EQ(Random, M.serviceTime(MiB, false));
  EXPECT_DOUBLE_EQ(Seq, M.serviceTime(MiB, true));
  EXPECT_DOUBLE_EQ(0.01 + 0.5, M.serviceTime(MiB / 2, false));
}

TEST(DiskModel, OneDiskServesRequestsInFifoOrder) {
  DiskModel M(params(), 2);
  DiskModel::Request A = M.submit(0, 1, 0, MiB, 0);
  DiskModel::Request B = M.submit(0, 2, 0, MiB, 0); // another file: random
  DiskModel::Request C = M.submit(0, 3, 0, MiB, 0);
  EXPECT_DOUBLE_EQ(Random, A.Done);
  EXPECT_DOUBLE_EQ(2 * Random, B.Done);
  EXPECT_DOUBLE_EQ(3 * Random, C.Done);
  EXPECT_DOUBLE_EQ(Random, C.Service);
  EXPECT_DOUBLE_EQ(3 * Random, M.busySeconds(0));
  EXPECT_DOUBLE_EQ(0, M.busySeconds(1));
}

TEST(DiskModel, RequestsOnDifferentDisksOverlap) {
  DiskModel M(params(), 4);
  for (size_t D = 0; D < 4; ++D)
    EXPECT_DOUBLE_EQ(Random, M.submit(D, 7, 0, MiB, 0).Done) << "disk " << D;
  // Four disks did four requests in the time of one.
  M.waitUntil(Random);
  EXPECT_DOUBLE_EQ(Random, M.appClock());
}

TEST(DiskModel, SequentialRunsPayTheShortLatency) {
  DiskModel M(params(), 1);
  EXPECT_DOUBLE_EQ(Random, M.submit(0, 5, 4096, MiB, 0).Service) << "first request is random";
  EXPECT_DOUBLE_EQ(Seq, M.submit(0, 5, 4096 + MiB, MiB, 0).Service) << "continues the run";
  EXPECT_DOUBLE_EQ(Random, M.submit(0, 5, 4096 + 3 * MiB, MiB, 0).Service) << "a gap is a seek";
  EXPECT_DOUBLE_EQ(Random, M.submit(0, 6, 4096 + 4 * MiB, MiB, 0).Service) << "another file is a seek";
  EXPECT_DOUBLE_EQ(Random, M.submit(0, 6, 0, MiB, 0).Service) << "going backwards is a seek";
}

TEST(DiskModel, IdleDiskStartsAtTheIssueTime) {
  DiskModel M(params(), 1);
  DiskModel::Request A = M.submit(0, 1, 0, MiB, 0);
  DiskModel::Request B = M.submit(0, 2, 0, MiB, 5.0); // disk idle since A.Done
  EXPECT_DOUBLE_EQ(5.0 + Random, B.Done);
  EXPECT_LT(A.Done, 5.0);
}

TEST(DiskModel, ApplicationClockOnlyMovesForward) {
  DiskModel M(params(), 1);
  M.waitUntil(2.0);
  M.waitUntil(1.0);
  EXPECT_DOUBLE_EQ(2.0, M.appClock());
  M.reset();
  EXPECT_DOUBLE_EQ(0, M.appClock());
  EXPECT_DOUBLE_EQ(0, M.busySeconds(0));
  EXPECT_DOUBLE_EQ(Random, M.submit(0, 1, 0, MiB, 0).Done) << "reset forgets queues and runs";
}

TEST(DiskModel, NoneCostsNothing) {
  DiskModelParams P;
  ASSERT_TRUE(parseDiskModel("none", P).ok());
  DiskModel M(P, 2);
  EXPECT_FALSE(M.enabled());
  DiskModel::Request R = M.submit(1, 1, 0, MiB, 3.5);
  EXPECT_DOUBLE_EQ(3.5, R.Done);
  EXPECT_DOUBLE_EQ(0, R.Service);
  EXPECT_DOUBLE_EQ(0, M.serviceTime(MiB, false));
  EXPECT_DOUBLE_EQ(0, M.busySeconds(1));
}

TEST(DiskModel, SameRequestsGiveBitIdenticalTimes) {
  auto Run = [] {
    DiskModelParams P;
    EXPECT_TRUE(parseDiskModel("hdd", P).ok());
    DiskModel M(P, 3);
    std::mt19937_64 R(42);
    std::vector<double> Out;
    for (int I = 0; I < 1000; ++I) {
      size_t Disk = R() % 3;
      DiskModel::Request Q = M.submit(Disk, R() % 4, (R() % 16) * 65536, 65536, M.appClock());
      if (R() % 2)
        M.waitUntil(Q.Done);
      Out.push_back(Q.Done);
    }
    Out.push_back(M.appClock());
    return Out;
  };
  std::vector<double> A = Run(), B = Run();
  ASSERT_EQ(A.size(), B.size());
  for (size_t I = 0; I < A.size(); ++I)
    ASSERT_EQ(A[I], B[I]) << "request " << I;
  EXPECT_GT(A.back(), 0);
}

// Threads of a parallel region have their own clocks, and their requests
// reach the model in the order the threads make them. A thread whose clock
// is behind asks at a time when the disk was idle on the timeline: it is
// served then, not after the requests another thread made at later times.
TEST(DiskModel, ALaggingThreadIsServedInTheDisksIdleTime) {
  DiskModel M(params(), 1);
  M.enterThread(50); // this thread is ahead: its clock is at 50 s
  DiskModel::Request Ahead = M.submit(0, 1, 0, MiB, M.appClock());
  EXPECT_DOUBLE_EQ(50 + Random, Ahead.Done);
  // Another thread, at 10 s (same model, another clock): before, it waited
  // until 50 + 2 requests; the disk was idle from 0 to 50.
  DiskModel::Request Behind = M.submit(0, 2, 0, MiB, 10);
  EXPECT_DOUBLE_EQ(10 + Random, Behind.Done);
  // A request that fits no gap goes to the end of the queue.
  DiskModel::Request Late = M.submit(0, 3, 0, MiB, 49.5);
  EXPECT_DOUBLE_EQ(50 + 2 * Random, Late.Done);
  // The request after a gap's occupant on the same file is sequential.
  DiskModel::Request Next = M.submit(0, 2, MiB, MiB, 10);
  EXPECT_DOUBLE_EQ(10 + Random + Seq, Next.Done);
  EXPECT_DOUBLE_EQ(3 * Random + Seq, M.busySeconds(0));
  M.leaveThread();
}

// Without threads, requests keep the queue's order (the single-thread
// numbers do not move): a request issued earlier than the last one still
// waits behind it.
TEST(DiskModel, OneThreadKeepsFifoOrderEvenWithAnEarlierIssue) {
  DiskModel M(params(), 1);
  EXPECT_DOUBLE_EQ(50 + Random, M.submit(0, 1, 0, MiB, 50).Done);
  EXPECT_DOUBLE_EQ(50 + 2 * Random, M.submit(0, 2, 0, MiB, 10).Done);
}

// Only the latest requests of a disk are kept: no gap is found before the
// oldest of them, where the disk may have been busy.
TEST(DiskModel, NoGapBeforeTheRequestsItNoLongerKeeps) {
  DiskModel M(params(), 1);
  M.enterThread(0);
  double End = 0;
  for (size_t I = 0; I <= DiskModel::MaxRecent; ++I) // one more than it keeps
    End = M.submit(0, 1, 0, MiB, 1000.0 * static_cast<double>(I)).Done;
  EXPECT_DOUBLE_EQ(1000.0 * DiskModel::MaxRecent + Random, End);
  // Idle from 0 + Random to 1000 on the timeline, but that request is
  // forgotten: the next gap after it starts at its end.
  EXPECT_DOUBLE_EQ(Random + Random, M.submit(0, 2, 0, MiB, 0).Done);
  M.leaveThread();
}
