//===- ApiFsckTest.cpp - iopoly-fsck NAME [--repair | --remove] -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The recovery tool reads the disk directories from IOPOLY_DIR/IOPOLY_DISKS
// like a program, says what state an array is in (exit 0 when it opens, 1
// when it needs recovery), and recovers it: --repair keeps the data as it
// is on disk (after writing back rescued blocks, rebuilding checksums) and
// marks it clean; --remove deletes every file of the array. Arrays whose
// files belong to different creations are not "repaired": that would pick
// one run's data arbitrarily.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

using namespace iopoly::test;

class ApiFsck : public ApiTest {
protected:
  RunResult fsck(const std::vector<std::string> &Args, const std::map<std::string, std::string> &Extra = {}) {
    std::map<std::string, std::string> Vars = Env;
    for (const auto &KV : Extra)
      Vars[KV.first] = KV.second;
    std::vector<std::string> A;
    for (const auto &KV : Vars)
      A.push_back(KV.first + "=" + KV.second);
    A.push_back(IOPOLY_FSCK_TOOL);
    A.insert(A.end(), Args.begin(), Args.end());
    return runTool("/usr/bin/env", A);
  }
};

TEST_F(ApiFsck, ACleanArrayIsReportedClean) {
  ASSERT_EQ(0, run({"fill", "A", "24", "1", "trunc", "close"}).ExitCode);
  RunResult R = fsck({"A"});
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': clean")) << R;
  EXPECT_TRUE(contains(R.Out, "24 blocks")) << R;
}

TEST_F(ApiFsck, AMissingArrayIsNamed) {
  RunResult R = fsck({"Nope"});
  EXPECT_EQ(1, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'Nope' does not exist")) << R;
}

TEST_F(ApiFsck, ADirtyArrayIsRepairedAsItIsOnDisk) {
  ASSERT_EQ(0, run({"fill", "A", "24", "1", "trunc", "close"}).ExitCode);
  ASSERT_EQ(0, run({"fill", "A", "24", "2", "rdwr", "crash"}).ExitCode);
  RunResult R = fsck({"A"});
  EXPECT_EQ(1, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': dirty")) << R;
  EXPECT_TRUE(contains(R.Out, "--repair")) << R;
  R = fsck({"A", "--repair"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': repaired: the data is kept as it is on disk")) << R;
  EXPECT_EQ(0, fsck({"A"}).ExitCode);
  // It opens again; blocks written back before the crash hold seed 2, the
  // others seed 1 (that mix is what --repair accepts, knowingly).
  R = run({"check", "A", "24", "1"});
  EXPECT_TRUE(R.ExitCode == 0 || contains(R.Out, "mismatch")) << R;
}

TEST_F(ApiFsck, RemoveDeletesEveryFile) {
  ASSERT_EQ(0, run({"fill", "A", "24", "1", "trunc", "close"}, {{"IOPOLY_CHECKSUM", "on"}}).ExitCode);
  RunResult R = fsck({"A", "--remove"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': removed")) << R;
  for (size_t D = 0; D < 3; ++D) {
    EXPECT_EQ(-1, fileSize(diskFile(D, "A")));
    EXPECT_EQ(-1, fileSize(Dir + "/data/disk" + std::to_string(D) + "/A.sum"));
  }
  EXPECT_EQ(3, run({"check", "A", "24", "1"}).ExitCode);
}

TEST_F(ApiFsck, AnInterruptedCreationIsReportedAndRemovedByRepair) {
  ASSERT_EQ(0, run({"fill", "A", "24", "1", "trunc", "close"}).ExitCode);
  ASSERT_EQ(0, std::rename(diskFile(2, "A").c_str(), (diskFile(2, "A") + ".creating").c_str()));
  RunResult R = fsck({"A"});
  EXPECT_EQ(1, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': interrupted creation")) << R;
  R = fsck({"A", "--repair"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "nothing of it was committed; its files were removed")) << R;
  EXPECT_EQ(-1, fileSize(diskFile(2, "A") + ".creating"));
  EXPECT_EQ(-1, fileSize(diskFile(0, "A")));
}

TEST_F(ApiFsck, MixedCreationsAreNotRepaired) {
  auto Disks = [&](const char *A, const char *B, const char *C) {
    return std::map<std::string, std::string>{
        {"IOPOLY_DISKS", Dir + "/" + A + "," + Dir + "/" + B + "," + Dir + "/" + C}};
  };
  ASSERT_EQ(0, run({"fill", "A", "24", "1", "trunc", "close"}, Disks("r1/d0", "r1/d1", "r1/d2")).ExitCode);
  ASSERT_EQ(0, run({"fill", "A", "24", "2", "trunc", "close"}, Disks("r2/d0", "r2/d1", "r2/d2")).ExitCode);
  RunResult R = fsck({"A", "--repair"}, Disks("r1/d0", "r2/d1", "r1/d2"));
  EXPECT_EQ(1, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "belong to different creations")) << R;
  EXPECT_TRUE(contains(R.Out, "not repaired")) << R;
}

TEST_F(ApiFsck, ChecksumsAreRebuiltByRepairAndMismatchesCounted) {
  ASSERT_EQ(0, run({"fill", "A", "24", "1", "trunc", "close"}, {{"IOPOLY_CHECKSUM", "on"}}).ExitCode);
  ASSERT_EQ(0, run({"fill", "A", "24", "2", "rdwr", "crash"}).ExitCode);
  RunResult R = fsck({"A", "--repair"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "checksums rebuilt")) << R;
  R = run({"check", "A", "24", "1"});
  EXPECT_FALSE(contains(R.Out, "checksum mismatch")) << R;
}

TEST_F(ApiFsck, UsageErrors) {
  RunResult R = fsck({});
  EXPECT_EQ(2, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Err, "usage: iopoly-fsck NAME [--repair | --remove]")) << R;
  R = fsck({"A", "--frobnicate"});
  EXPECT_EQ(2, R.ExitCode) << R;
  R = fsck({"A"}, {{"IOPOLY_DISKS", "abc"}});
  EXPECT_EQ(2, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Err, "IOPOLY_DISKS=abc")) << R;
}
