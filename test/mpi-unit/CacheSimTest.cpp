//===- CacheSimTest.cpp - The trace-driven simulator on small traces ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Hand-made traces through small hierarchies: the clock order (ties go to
// the lower rank), the recorded order (the servers' arrival numbers) and
// its check against the levels of the real run, and the end of an epoch:
// a copy written through another I/O node is dropped at the sync point.
//
//===----------------------------------------------------------------------===//
#include "mpi/CacheSim.h"

#include <gtest/gtest.h>

using namespace iopoly;

namespace {

constexpr uint32_t S = 4096;

Topology topo(const char *Text) {
  Topology T;
  std::string E = parseTopology(Text, T);
  EXPECT_EQ("", E);
  return T;
}

/// Two clients under one I/O node, caches of one stripe.
const char *Shared = R"({"clients": [{"ranks": [0]}, {"ranks": [1]}],
  "io_nodes": [{"cache": 4096, "clients": [0, 1]}],
  "storage_nodes": [{"cache": 4096, "io_nodes": [0], "disks": [0]}], "disk_model": "none"})";
/// Two clients under two I/O nodes of one storage node.
const char *Split = R"({"clients": [{"ranks": [0]}, {"ranks": [1]}],
  "io_nodes": [{"cache": 8192, "clients": [0]}, {"cache": 8192, "clients": [1]}],
  "storage_nodes": [{"cache": 16384, "io_nodes": [0, 1], "disks": [0]}], "disk_model": "none"})";

struct TraceBuilder {
  TraceContents T;
  TraceBuilder() { T.ArrayNames = {"", "A"}; }
  TraceBuilder &read(uint64_t Stripe, uint8_t Level = 0, uint32_t L2 = 0, uint32_t L3 = 0) {
    TraceRequest R;
    R.Array = 1;
    R.Stripe = Stripe;
    R.Bytes = S;
    R.FileKey = 42;
    R.Level = Level;
    R.L2Seq = L2;
    R.L3Seq = L3;
    R.After = T.Events.size();
    T.Requests.push_back(R);
    return *this;
  }
  TraceBuilder &write(uint64_t Stripe, uint32_t Bytes) {
    read(Stripe);
    T.Requests.back().Write = 1;
    T.Requests.back().Bytes = Bytes;
    return *this;
  }
  TraceBuilder &sync() {
    TraceEvent E{TraceSync, 0, 1, 0, 0};
    T.Events.push_back(E);
    return *this;
  }
};

} // namespace

TEST(CacheSim, ClockOrderTiesGoToTheLowerRank) {
  Topology T = topo(Shared);
  std::vector<TraceContents> Tr = {TraceBuilder().read(5).T, TraceBuilder().read(5).T};
  SimResult R;
  ASSERT_EQ("", simulate(T, Tr, SimOptions(), R));
  EXPECT_EQ(0u, R.Clients[0].L2.Hits);
  EXPECT_EQ(1u, R.Clients[0].Disk.Reads) << "rank 0 goes first and reads the disk";
  EXPECT_EQ(1u, R.Clients[1].L2.Hits) << "rank 1 finds it in the shared I/O-node cache";
  EXPECT_EQ(0u, R.LevelMismatches);
}

TEST(CacheSim, RecordedOrderFollowsTheServersAndChecksTheLevels) {
  Topology T = topo(Shared);
  // In the real run rank 1 arrived first (L2 number 1) and read the disk.
  std::vector<TraceContents> Tr = {TraceBuilder().read(5, 2, 2).T, TraceBuilder().read(5, 4, 1, 1).T};
  SimOptions O;
  O.Recorded = true;
  SimResult R;
  ASSERT_EQ("", simulate(T, Tr, O, R));
  EXPECT_EQ(1u, R.Clients[0].L2.Hits);
  EXPECT_EQ(1u, R.Clients[1].Disk.Reads);
  EXPECT_EQ(0u, R.LevelMismatches);
  // A trace claiming rank 0 was served by the disk disagrees.
  Tr[0] = TraceBuilder().read(5, 4, 2, 2).T;
  ASSERT_EQ("", simulate(T, Tr, O, R));
  EXPECT_GT(R.LevelMismatches, 0u);
  EXPECT_NE(std::string::npos, R.FirstMismatch.find("rank 0")) << R.FirstMismatch;
}

TEST(CacheSim, SyncPointDropsCopiesWrittenThroughAnotherIoNode) {
  Topology T = topo(Split);
  // Rank 0 reads stripe 3 (cached at io0 and s0); rank 1 writes 8 bytes of
  // it (through io1 and s0); after the sync rank 0 reads it again: io0's
  // copy is old and was dropped, s0 saw the write and keeps its copy.
  std::vector<TraceContents> Tr = {TraceBuilder().read(3).sync().read(3).T, TraceBuilder().write(3, 8).sync().T};
  SimResult R;
  ASSERT_EQ("", simulate(T, Tr, SimOptions(), R));
  EXPECT_EQ(0u, R.Clients[0].L2.Hits) << "the I/O-node copy must not survive another node's write";
  EXPECT_EQ(1u, R.Clients[0].L3.Hits);
  EXPECT_EQ(1u, R.Clients[1].L2.Writes);
}

TEST(CacheSim, TraceCountMustMatchTheTopology) {
  Topology T = topo(Shared);
  SimResult R;
  EXPECT_NE(std::string::npos, simulate(T, {TraceBuilder().T}, SimOptions(), R).find("2 ranks but 1 traces"));
}
