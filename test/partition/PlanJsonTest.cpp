//===- PlanJsonTest.cpp - plan.json written, read and checked --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "DirEntries.h"
#include "Harness.h"
#include "partition/Plan.h"
#include "partition/Report.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace iopoly::prof;
using namespace iopoly::prof::test;

namespace {
Plan sample() {
  std::map<std::string, FileProfile> Files;
  FileProfile &F = Files["/shared/out"];
  F.Path = "/shared/out";
  F.Runs = {run(2, {acc(0, 'w', 0, 100, 1), acc(1, 'w', 100, 100, 2), acc(1, 'r', 0, 10, 3),
                    acc(0, 'r', 200, 50, 4), acc(1, 'r', 200, 50, 5)})};
  Files["/shared/excluded"].Path = "/shared/excluded";
  Files["/shared/excluded"].Excluded = "opened by 2 processes through separate communicators of 1";
  return buildPlan(Files, PlanOptions());
}

Error parse(const std::string &Text) {
  Plan P;
  return parsePlan(Text, "t.json", P);
}

using iopoly::test::dirEntries;
} // namespace

TEST(PlanJson, RoundTrip) {
  TempDir D;
  Plan P = sample();
  ASSERT_TRUE(writePlan(P, D.Path + "/plan.json").ok());
  Plan Q;
  Error E = readPlan(D.Path + "/plan.json", Q);
  ASSERT_TRUE(E.ok()) << E.message();
  ASSERT_EQ(Q.Files.size(), 2u);
  const PlanFile *F = Q.find("/shared/out");
  ASSERT_NE(F, nullptr);
  ASSERT_EQ(F->Variants.size(), 1u);
  const FilePlan &A = P.find("/shared/out")->Variants[0], &B = F->Variants[0];
  ASSERT_EQ(A.Chunks.size(), B.Chunks.size());
  for (size_t I = 0; I < A.Chunks.size(); ++I) {
    EXPECT_EQ(A.Chunks[I].C.Offset, B.Chunks[I].C.Offset);
    EXPECT_EQ(A.Chunks[I].C.Length, B.Chunks[I].C.Length);
    EXPECT_EQ(A.Chunks[I].Class, B.Chunks[I].Class);
    EXPECT_EQ(A.Chunks[I].Home, B.Chunks[I].Home);
    EXPECT_EQ(A.Chunks[I].Holders, B.Chunks[I].Holders);
  }
  for (uint32_t R = 0; R < 2; ++R)
    EXPECT_EQ(layoutHash(A, R), layoutHash(B, R));
  EXPECT_EQ(Q.find("/shared/excluded")->Excluded, P.find("/shared/excluded")->Excluded);
  EXPECT_EQ(F->HasModel, P.find("/shared/out")->HasModel);
  // The report survives in the file and speaks of every class.
  EXPECT_NE(Q.ReportJson.find("\"broadcast\""), std::string::npos);
  std::string Text = reportText(Q);
  EXPECT_NE(Text.find("left out: opened by 2 processes"), std::string::npos) << Text;
  EXPECT_NE(Text.find("duplicate"), std::string::npos);
}

TEST(PlanJson, ReportCountsTraffic) {
  Plan P = sample();
  VariantStats S = variantStats(P.find("/shared/out")->Variants[0]);
  EXPECT_EQ(S.AccessBytes, 310u);
  EXPECT_EQ(S.CentralBytes, 0u);
  EXPECT_EQ(S.LocalBytes, 310u);
  EXPECT_EQ(S.ByClass[static_cast<int>(ChunkClass::Broadcast)].Chunks, 1u);
  EXPECT_EQ(S.ByClass[static_cast<int>(ChunkClass::Duplicate)].Bytes, 50u);
  EXPECT_EQ(S.StageBytes, 100u); // the duplicate, read (before any write) by both holders
  EXPECT_EQ(S.GatherBytes, 200u);
}

TEST(PlanJson, BadPlansAreRefusedWithTheReason) {
  EXPECT_NE(parse("{").message().find("not valid JSON"), std::string::npos);
  EXPECT_NE(parse("{\"format\":\"x\"}").message().find("not an iopoly partition plan"), std::string::npos);
  EXPECT_NE(parse("{\"format\":\"iopoly-partition-plan\",\"version\":99,\"files\":[]}").message().find("version 99"),
            std::string::npos);
  std::string Head = "{\"format\":\"iopoly-partition-plan\",\"version\":1,\"files\":[{\"path\":\"/f\",\"variants\":[{"
                     "\"nranks\":2,\"chunks\":[";
  std::string Parts = "],\"partitions\":[[],[]]}]}]}";
  EXPECT_NE(parse(Head + "{\"offset\":0,\"length\":10,\"class\":\"sideways\",\"home\":0,\"holders\":[0]}" + Parts)
                .message()
                .find("unknown class 'sideways'"),
            std::string::npos);
  EXPECT_NE(parse(Head +
                  "{\"offset\":0,\"length\":10,\"class\":\"local\",\"home\":0,\"holders\":[0]},"
                  "{\"offset\":5,\"length\":10,\"class\":\"local\",\"home\":1,\"holders\":[1]}" +
                  Parts)
                .message()
                .find("disjoint"),
            std::string::npos);
  EXPECT_NE(parse(Head + "{\"offset\":0,\"length\":10,\"class\":\"local\",\"home\":5,\"holders\":[0]}" + Parts)
                .message()
                .find("home does not fit"),
            std::string::npos);
  EXPECT_NE(parse(Head + "{\"offset\":0,\"length\":10,\"class\":\"local\",\"home\":0,\"holders\":[0]}" +
                  "],\"partitions\":[[[0,0]],[[0,0]]]}]}]}")
                .message()
                .find("not held by rank 1"),
            std::string::npos);
  Plan Missing;
  EXPECT_EQ(readPlan("/nonexistent/plan.json", Missing).code(), Errc::NotFound);
}

TEST(PlanJson, ASymlinkIsFollowedAndKept) {
  TempDir D;
  ASSERT_EQ(0, ::mkdir((D.Path + "/elsewhere").c_str(), 0755));
  ASSERT_EQ(0, ::symlink("elsewhere/real.json", (D.Path + "/plan.json").c_str()));
  ASSERT_TRUE(writePlan(sample(), D.Path + "/plan.json").ok());
  struct stat St;
  ASSERT_EQ(0, ::lstat((D.Path + "/plan.json").c_str(), &St));
  EXPECT_TRUE(S_ISLNK(St.st_mode)) << "the link was replaced";
  Plan Q;
  Error E = readPlan(D.Path + "/elsewhere/real.json", Q);
  ASSERT_TRUE(E.ok()) << E.message();
  EXPECT_EQ(Q.Files.size(), 2u);
  EXPECT_EQ(std::vector<std::string>({"elsewhere", "plan.json"}), dirEntries(D.Path)) << "nothing left beside";
  EXPECT_EQ(std::vector<std::string>({"real.json"}), dirEntries(D.Path + "/elsewhere"));
}

TEST(PlanJson, ADirectoryIsRefusedWithTheReason) {
  TempDir D;
  std::string Path = D.Path + "/plan.json";
  ASSERT_EQ(0, ::mkdir(Path.c_str(), 0755));
  Error E = writePlan(sample(), Path);
  EXPECT_EQ(E.code(), Errc::Io);
  EXPECT_EQ(E.message(), "cannot write the plan to '" + Path + "': it is a directory");
  EXPECT_EQ(std::vector<std::string>({"plan.json"}), dirEntries(D.Path));
  EXPECT_TRUE(dirEntries(Path).empty());
}
