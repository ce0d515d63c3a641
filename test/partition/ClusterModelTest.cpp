//===- ClusterModelTest.cpp - The modeled cluster on forged runs -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "model/ClusterModel.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace iopoly::prof;

namespace {
/// P sections, each writing Bytes at rank * Bytes to one file, to \p Where,
/// collectively or not.
struct Forged {
  std::vector<Section> S;
  Run R;
  Forged(uint32_t P, uint64_t Bytes, Target Where, bool Collective, uint32_t Calls = 1) {
    S.resize(P);
    R.NRanks = P;
    for (uint32_t Rk = 0; Rk < P; ++Rk) {
      Section &X = S[Rk];
      X.Rank = Rk;
      X.NRanks = P;
      X.LocalDir = Where == Target::Local ? "/local/node" + std::to_string(Rk) : "";
      X.Files[0] = LoggedFile{"/shared/f", 7, P, Rk, 0, false};
      for (uint32_t C = 0; C < Calls; ++C) {
        AccessRecord A{};
        A.Kind = RecAccess;
        A.Op = static_cast<uint8_t>(IoOp::Write);
        A.Flags = Collective ? AfCollective : 0;
        A.Offset = (static_cast<uint64_t>(Rk) * Calls + C) * Bytes;
        A.Length = Bytes;
        A.Call = C;
        A.Target = static_cast<uint16_t>(Where);
        X.Accesses.push_back(A);
      }
    }
    for (Section &X : S)
      R.Ranks.push_back(&X);
  }
};
ClusterParams simple() {
  ClusterParams P;
  P.Central = {0.001, 0.0001, 100e6, 100e6};
  P.Link = {0.0, 0.0, 10e6, 10e6};
  P.Local = {0.002, 0.0001, 5e6, 5e6};
  P.Port = P.Link;
  return P;
}
} // namespace

TEST(ClusterModel, CentralWritesShareTheLink) {
  Forged F(4, 1000000, Target::Shared, false);
  ModelResult M;
  ASSERT_TRUE(modelRun(F.R, simple(), M).ok());
  // 4 MB through a 10 MB/s link: 0.4 s, whatever the order.
  EXPECT_NEAR(M.Makespan, 0.4, 0.01);
  EXPECT_EQ(M.Write.Bytes, 4000000u);
  EXPECT_EQ(M.BytesByTarget[0], 4000000u);
}

TEST(ClusterModel, LocalDisksWorkInParallel) {
  Forged F(4, 1000000, Target::Local, false);
  ModelResult M;
  ASSERT_TRUE(modelRun(F.R, simple(), M).ok());
  EXPECT_NEAR(M.Makespan, 0.002 + 0.2, 1e-6); // each node: latency + 1 MB at 5 MB/s
  EXPECT_GT(M.WriteBandwidth, 19e6);          // four disks at 5 MB/s
  EXPECT_EQ(M.CentralRequests, 0u);
}

TEST(ClusterModel, SequentialRequestsPayTheShortLatency) {
  ClusterParams P = simple();
  P.Link = {0, 0, 0, 0}; // only the disk counts
  Forged One(1, 1000, Target::Shared, false, 10);
  ModelResult M;
  ASSERT_TRUE(modelRun(One.R, P, M).ok());
  EXPECT_NEAR(M.Makespan, 0.001 + 9 * 0.0001 + 10 * 1000 / 100e6, 1e-9);
}

TEST(ClusterModel, CollectiveWritesArePooledAndDeterministic) {
  ClusterParams P = simple();
  Forged Ind(8, 100000, Target::Shared, false), Coll(8, 100000, Target::Shared, true);
  ModelResult A, B, C;
  ASSERT_TRUE(modelRun(Ind.R, P, A).ok());
  ASSERT_TRUE(modelRun(Coll.R, P, B).ok());
  ASSERT_TRUE(modelRun(Coll.R, P, C).ok());
  EXPECT_EQ(B.Makespan, C.Makespan);
  EXPECT_EQ(B.CentralRequests, 1u); // 800 kB contiguous: one two-phase request
  EXPECT_LE(B.Makespan, A.Makespan);
  for (const RankResult &R : B.Ranks)
    EXPECT_EQ(R.Clock, B.Makespan); // a collective ends together
}

TEST(ClusterModel, DeviceOptionsParse) {
  DeviceParams D;
  ASSERT_TRUE(parseDevice("latency=2ms,seq=10us,bw=8M,wbw=4M", "--local", D).ok());
  EXPECT_DOUBLE_EQ(D.Latency, 0.002);
  EXPECT_DOUBLE_EQ(D.SeqLatency, 1e-5);
  EXPECT_DOUBLE_EQ(D.ReadBw, 8.0 * 1048576);
  EXPECT_DOUBLE_EQ(D.WriteBw, 4.0 * 1048576);
  EXPECT_NE(parseDevice("speed=3", "--local", D).message().find("unknown key 'speed'"), std::string::npos);
  EXPECT_NE(parseDevice("latency=fast", "--local", D).message().find("not a duration"), std::string::npos);
}
