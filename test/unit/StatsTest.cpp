//===- StatsTest.cpp - Distinct-stripe bits and counter reset -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// distinct_stripes counts each (array name, stripe) once however often it
// is fetched, keeps counting across a reopen of the same name (the bits are
// kept by name), and reset() clears counters and bits but keeps the disks.
//
//===----------------------------------------------------------------------===//
#include "core/Stats.h"

#include <gtest/gtest.h>

using namespace iopoly;

TEST(Stats, DistinctStripesCountEachStripeOnce) {
  Stats S(3);
  auto *A = S.fetchedBits("A", 200);
  auto *B = S.fetchedBits("B", 10);
  for (size_t Stripe : {0, 63, 64, 199, 63, 0})
    Stats::markFetched(*A, Stripe);
  Stats::markFetched(*B, 0);
  EXPECT_EQ(5u, S.distinctStripes());
  // The same name (a reopen) shares its bits, and may grow.
  auto *A2 = S.fetchedBits("A", 300);
  Stats::markFetched(*A2, 299);
  Stats::markFetched(*A2, 199);
  EXPECT_EQ(6u, S.distinctStripes());
}

TEST(Stats, ResetClearsCountersAndBitsButKeepsTheDisks) {
  Stats S(4);
  S.C.Fetches = 7;
  S.C.PerDisk[3].Fetches = 2;
  S.IoNanos = 99;
  Stats::markFetched(*S.fetchedBits("A", 8), 5);
  S.reset();
  EXPECT_EQ(0u, S.C.Fetches);
  ASSERT_EQ(4u, S.C.PerDisk.size());
  EXPECT_EQ(0u, S.C.PerDisk[3].Fetches);
  EXPECT_EQ(0u, S.IoNanos.load());
  EXPECT_EQ(0u, S.distinctStripes());
}
