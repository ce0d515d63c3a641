//===- CacheTest.cpp - The bounded prefetch cache ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The cache never holds more than its bound; makes room from served
// entries first; a write drops exactly the overlapping copies (also one
// still being read); a get waits for a read in flight; a request only
// partly cached is a partial hit; unserved copies count as wasted.
//
//===----------------------------------------------------------------------===//
#include "Cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

using namespace iopoly::knowac;

namespace {
const FileId F1{1, 10}, F2{1, 11};
Box box(int64_t S, int64_t C) { return Box{{S}, {C}, {1}}; }
std::shared_ptr<Entry> ready(Cache &C, FileId F, int Var, Box B, size_t Bytes) {
  auto E = C.startFill(F, Var, B, 1, Bytes);
  if (E) {
    std::fill_n(E->Data.data(), Bytes, 7);
    EXPECT_TRUE(C.finishFill(E, true, FileSig{}));
  }
  return E;
}
} // namespace

TEST(Cache, StaysWithinItsBound) {
  Cache C(1000);
  auto A = ready(C, F1, 0, box(0, 400), 400);
  auto B = ready(C, F1, 0, box(400, 400), 400);
  ASSERT_TRUE(A && B);
  EXPECT_FALSE(C.startFill(F1, 0, box(800, 400), 1, 400)); // nothing may go
  EXPECT_FALSE(C.startFill(F1, 0, box(0, 2000), 1, 2000)); // larger than the cache
  C.served(A);
  auto D = ready(C, F1, 0, box(800, 400), 400); // A was served: it makes room
  ASSERT_TRUE(D);
  EXPECT_LE(C.used(), 1000u);
  EXPECT_EQ(C.evictions(), 1u);
  EXPECT_EQ(C.wastedBytes(), 0u);
  // An unserved entry goes only when the caller no longer predicts it.
  auto E = C.startFill(F1, 0, box(1200, 400), 1, 400, [&](const Entry &X) { return X.B == box(400, 400); });
  ASSERT_TRUE(E);
  EXPECT_EQ(C.wastedBytes(), 400u);
}

TEST(Cache, WritesDropOverlappingCopiesOnly) {
  Cache C(1 << 20);
  ready(C, F1, 0, box(0, 10), 10);
  ready(C, F1, 0, box(10, 10), 10);
  ready(C, F1, 1, box(0, 10), 10);
  ready(C, F2, 0, box(0, 10), 10);
  Box W = box(5, 2);
  EXPECT_EQ(C.invalidate(F1, 0, &W), 1u);
  std::shared_ptr<Entry> E;
  EXPECT_EQ(C.find(F1, 0, box(6, 1), E), Cache::Found::Miss);
  EXPECT_EQ(C.find(F1, 0, box(12, 3), E), Cache::Found::Hit);
  EXPECT_EQ(C.invalidate(F1, -1, nullptr), 2u); // the whole file
  EXPECT_EQ(C.find(F2, 0, box(0, 10), E), Cache::Found::Hit);
  EXPECT_EQ(C.entries(), 1u);
  EXPECT_EQ(C.wastedBytes(), 30u);
}

TEST(Cache, ACopyInvalidatedWhileBeingReadIsDiscarded) {
  Cache C(1 << 20);
  auto E = C.startFill(F1, 0, box(0, 10), 1, 10);
  ASSERT_TRUE(E);
  Box W = box(0, 1);
  EXPECT_EQ(C.invalidate(F1, 0, &W), 1u);
  EXPECT_FALSE(C.finishFill(E, true, FileSig{}));
  std::shared_ptr<Entry> X;
  EXPECT_EQ(C.find(F1, 0, box(0, 10), X), Cache::Found::Miss);
  EXPECT_EQ(C.used(), 0u);
}

TEST(Cache, AGetWaitsForTheReadInFlight) {
  Cache C(1 << 20);
  auto E = C.startFill(F1, 0, box(0, 100), 1, 100);
  ASSERT_TRUE(E);
  std::thread Helper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::fill_n(E->Data.data(), 100, 3);
    C.finishFill(E, true, FileSig{});
  });
  std::shared_ptr<Entry> Got;
  double Waited = 0;
  EXPECT_EQ(C.find(F1, 0, box(20, 10), Got, &Waited), Cache::Found::Hit);
  Helper.join();
  EXPECT_GT(Waited, 0.02);
  ASSERT_TRUE(Got);
  EXPECT_EQ(Got->Data.data()[20], 3);
}

TEST(Cache, BuffersOfDroppedEntriesAreReusedOnlyWhenNobodyHoldsThem) {
  Cache C(1 << 20);
  auto A = ready(C, F1, 0, box(0, 1000), 1000);
  const unsigned char *Mem = A->Data.data();
  A.reset(); // only the cache holds it now
  Box W = box(0, 1);
  C.invalidate(F1, 0, &W);
  auto B = C.startFill(F1, 0, box(0, 800), 1, 800);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->Data.data(), Mem); // recycled
  EXPECT_EQ(B->Data.size(), 800u);
  // A buffer someone still reads from is not handed out again.
  B->Data.data()[0] = 42;
  ASSERT_TRUE(C.finishFill(B, true, FileSig{}));
  std::shared_ptr<Entry> Held;
  ASSERT_EQ(C.find(F1, 0, box(0, 10), Held), Cache::Found::Hit);
  B.reset();
  C.invalidate(F1, 0, &W);
  auto D = C.startFill(F1, 0, box(0, 800), 1, 800);
  ASSERT_TRUE(D);
  EXPECT_NE(D->Data.data(), Held->Data.data());
  EXPECT_EQ(Held->Data.data()[0], 42);
}

TEST(Cache, PartlyCachedRequestsArePartialHits) {
  Cache C(1 << 20);
  ready(C, F1, 0, box(0, 10), 10);
  std::shared_ptr<Entry> E;
  EXPECT_EQ(C.find(F1, 0, box(5, 10), E), Cache::Found::Partial);
  EXPECT_FALSE(E);
  C.clear();
  EXPECT_EQ(C.wastedBytes(), 10u);
}
