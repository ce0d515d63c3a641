//===- IOWorkersTest.cpp - One background I/O thread per disk -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Jobs of one disk run in submission order on one thread, jobs of different
// disks on different threads, stop() runs every queued job before joining,
// jobs submitted after stop() and in inline mode run on the caller.
//
//===----------------------------------------------------------------------===//
#include "io/IOWorkers.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace iopoly;

TEST(IOWorkers, OneDiskRunsItsJobsInOrderOnOneThread) {
  IOWorkers W(2, /*Inline=*/false);
  std::mutex Mu;
  std::vector<int> Order;
  std::set<std::thread::id> Threads;
  for (int I = 0; I < 100; ++I)
    W.submit(1, [&, I] {
      std::lock_guard<std::mutex> L(Mu);
      Order.push_back(I);
      Threads.insert(std::this_thread::get_id());
    });
  W.stop(); // drains, then joins
  std::lock_guard<std::mutex> L(Mu);
  ASSERT_EQ(100u, Order.size());
  for (int I = 0; I < 100; ++I)
    EXPECT_EQ(I, Order[I]);
  EXPECT_EQ(1u, Threads.size());
  EXPECT_EQ(0u, Threads.count(std::this_thread::get_id()));
}

TEST(IOWorkers, DisksHaveTheirOwnThreads) {
  IOWorkers W(3, false);
  std::mutex Mu;
  std::map<size_t, std::set<std::thread::id>> ByDisk;
  for (int I = 0; I < 30; ++I)
    W.submit(I % 3, [&, I] {
      std::lock_guard<std::mutex> L(Mu);
      ByDisk[I % 3].insert(std::this_thread::get_id());
    });
  W.stop();
  std::set<std::thread::id> All;
  for (auto &KV : ByDisk) {
    EXPECT_EQ(1u, KV.second.size());
    All.insert(KV.second.begin(), KV.second.end());
  }
  EXPECT_EQ(3u, All.size());
}

TEST(IOWorkers, AfterStopAndInlineJobsRunOnTheCaller) {
  IOWorkers W(1, false);
  W.stop();
  W.stop(); // twice is harmless
  std::thread::id Ran;
  W.submit(0, [&] { Ran = std::this_thread::get_id(); });
  EXPECT_EQ(std::this_thread::get_id(), Ran);

  IOWorkers Inline(2, /*Inline=*/true);
  std::thread::id Ran2;
  Inline.submit(1, [&] { Ran2 = std::this_thread::get_id(); });
  EXPECT_EQ(std::this_thread::get_id(), Ran2);
}
