//===- ProfileLogTest.cpp - The binary profile log, written and read -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "log/LogReader.h"
#include "log/LogWriter.h"

#include <fstream>
#include <gtest/gtest.h>
#include <iterator>

using namespace iopoly::prof;
using namespace iopoly::prof::test;

namespace {
SectionInfo info(uint32_t Rank, uint32_t N, uint64_t Run) {
  SectionInfo I;
  I.Rank = Rank;
  I.NRanks = N;
  I.RunId = Run;
  I.T0RealtimeNs = 1000;
  I.Host = "node" + std::to_string(Rank);
  I.Program = "./prog";
  return I;
}

void writeSection(const std::string &Path, uint32_t Rank, uint32_t N, uint64_t Run) {
  LogWriter W;
  ASSERT_TRUE(W.open(Path, info(Rank, N, Run)).ok());
  uint32_t F = W.addFile("/data/out", 77, N, Rank, 9, false);
  AccessRecord A{};
  A.Kind = RecAccess;
  A.Op = static_cast<uint8_t>(IoOp::Write);
  A.Flags = AfCollective;
  A.File = F;
  A.Offset = Rank * 4096;
  A.Length = 4096;
  A.Start = 5;
  A.End = 9;
  A.Call = 1;
  W.access(A);
  EventRecord E{};
  E.Kind = RecEvent;
  E.Event = static_cast<uint8_t>(EventKind::Close);
  E.File = F;
  E.Call = 2;
  W.event(E);
  ASSERT_TRUE(W.close().ok());
}

std::string slurp(const std::string &P) {
  std::ifstream In(P, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
}
} // namespace

TEST(ProfileLog, RoundTripAndConcatenatedSections) {
  TempDir D;
  writeSection(D.Path + "/p.0.iopp", 0, 2, 42);
  writeSection(D.Path + "/p.1.iopp", 1, 2, 42);
  std::string All = slurp(D.Path + "/p.0.iopp") + slurp(D.Path + "/p.1.iopp");
  std::vector<Section> S;
  std::vector<std::string> W;
  ASSERT_TRUE(parseLog(All.data(), All.size(), "merged", S, W).ok());
  EXPECT_TRUE(W.empty());
  ASSERT_EQ(S.size(), 2u);
  EXPECT_EQ(S[1].Rank, 1u);
  EXPECT_EQ(S[1].Host, "node1");
  ASSERT_EQ(S[1].Accesses.size(), 1u);
  EXPECT_EQ(S[1].Accesses[0].Offset, 4096u);
  EXPECT_EQ(S[1].file(S[1].Accesses[0].File)->Path, "/data/out");
  EXPECT_EQ(S[1].file(0)->Instance, 77u);
  EXPECT_EQ(S[1].Events.size(), 1u);
  std::vector<iopoly::prof::Run> R;
  ASSERT_TRUE(groupRuns(S, R).ok());
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].missingRanks(), 0u);
}

TEST(ProfileLog, TruncatedTailIsAWarningDamageIsAnError) {
  TempDir D;
  writeSection(D.Path + "/p.0.iopp", 0, 1, 1);
  std::string A = slurp(D.Path + "/p.0.iopp");
  std::vector<Section> S;
  std::vector<std::string> W;
  std::string Cut = A.substr(0, A.size() - 20); // a crash in the middle of the last record
  ASSERT_TRUE(parseLog(Cut.data(), Cut.size(), "cut", S, W).ok());
  ASSERT_EQ(W.size(), 1u);
  EXPECT_NE(W[0].find("cut short"), std::string::npos);
  EXPECT_EQ(S[0].Accesses.size(), 1u);
  std::string Bad = A;
  Bad[2] = 'X';
  S.clear();
  EXPECT_NE(parseLog(Bad.data(), Bad.size(), "bad", S, W).message().find("bad magic"), std::string::npos);
  std::string Junk = A + "Z";
  S.clear();
  EXPECT_NE(parseLog(Junk.data(), Junk.size(), "junk", S, W).message().find("unknown record kind"),
            std::string::npos);
  EXPECT_EQ(readLog(D.Path + "/missing", S, W).code(), Errc::NotFound);
}

TEST(ProfileLog, SameRankTwiceInARunIsRefused) {
  TempDir D;
  writeSection(D.Path + "/a", 0, 2, 9);
  std::string A = slurp(D.Path + "/a");
  std::string Two = A + A;
  std::vector<Section> S;
  std::vector<std::string> W;
  ASSERT_TRUE(parseLog(Two.data(), Two.size(), "two", S, W).ok());
  std::vector<iopoly::prof::Run> R;
  EXPECT_NE(groupRuns(S, R).message().find("appears twice"), std::string::npos);
}
