//===- ApiDurabilityTest.cpp - Data survives the process that wrote it ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One process writes an array through the C API (more blocks than the
// buffer holds, a partial last block), another process reopens it
// read-only and checks every byte: after iopoly_close, and also when the
// writer never closes and relies on the write-back at exit. The same holds
// with O_DIRECT allowed or off, with stripes that O_DIRECT cannot use, and
// with disks given as a list of directories.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

using namespace iopoly::test;

namespace {
// 100 x 77 doubles: 61600 bytes, 16 blocks of 4 KiB (the last partial),
// twice the 8-frame buffer.
const std::vector<std::string> Shape = {"100", "77"};

std::vector<std::string> cmd(const std::string &Verb, const std::string &Name, const std::string &Seed,
                             const std::string &Mode = "") {
  std::vector<std::string> V = {Verb, Name, Shape[0], Shape[1], Seed};
  if (!Mode.empty())
    V.push_back(Mode);
  return V;
}
} // namespace

class ApiDurability : public ApiTest {};

TEST_F(ApiDurability, ClosedArrayReadsBackInANewProcess) {
  RunResult W = run(cmd("write", "A", "1", "close"));
  ASSERT_EQ(0, W.ExitCode) << W;
  EXPECT_TRUE(contains(W.Out, "wrote 61600 bytes in 16 blocks")) << W;
  RunResult V = run(cmd("verify", "A", "1"));
  ASSERT_EQ(0, V.ExitCode) << V;
  EXPECT_TRUE(contains(V.Out, "verified 61600 bytes")) << V;
}

TEST_F(ApiDurability, UnclosedArrayIsWrittenBackAtExit) {
  RunResult W = run(cmd("write", "A", "2", "noclose"));
  ASSERT_EQ(0, W.ExitCode) << W;
  RunResult V = run(cmd("verify", "A", "2"));
  ASSERT_EQ(0, V.ExitCode) << V;
}

TEST_F(ApiDurability, VerificationNoticesOtherBytes) {
  ASSERT_EQ(0, run(cmd("write", "A", "3", "close")).ExitCode);
  RunResult V = run(cmd("verify", "A", "4"));
  EXPECT_EQ(1, V.ExitCode) << "the check can fail: " << V;
  EXPECT_TRUE(contains(V.Err, "byte 0 of 'A'")) << V;
  // Rewriting (IOPOLY_TRUNC) replaces every byte, durably.
  ASSERT_EQ(0, run(cmd("write", "A", "4", "noclose")).ExitCode);
  RunResult V2 = run(cmd("verify", "A", "4"));
  EXPECT_EQ(0, V2.ExitCode) << V2;
}

TEST_F(ApiDurability, EveryIoPathIsDurable) {
  struct Variant {
    const char *Direct, *Stripe;
  } Variants[] = {{"auto", "4096"}, {"off", "4096"}, {"auto", "1088"}, {"off", "65536"}};
  for (const Variant &Va : Variants) {
    SCOPED_TRACE(std::string("IOPOLY_DIRECT=") + Va.Direct + " IOPOLY_STRIPE=" + Va.Stripe);
    std::map<std::string, std::string> E = {{"IOPOLY_DIRECT", Va.Direct}, {"IOPOLY_STRIPE", Va.Stripe},
                                            {"IOPOLY_BUFFER", "256K"}};
    std::string Name = std::string("A_") + Va.Direct + "_" + Va.Stripe;
    RunResult W = run(cmd("write", Name, "5", "noclose"), E);
    ASSERT_EQ(0, W.ExitCode) << W;
    RunResult V = run(cmd("verify", Name, "5"), E);
    ASSERT_EQ(0, V.ExitCode) << V;
  }
}

TEST_F(ApiDurability, DiskListOfDirectoriesIsDurable) {
  std::string List = Dir + "/ssd0," + Dir + "/ssd1";
  std::map<std::string, std::string> E = {{"IOPOLY_DISKS", List}};
  ASSERT_EQ(0, run(cmd("write", "L", "6", "close"), E).ExitCode);
  EXPECT_GT(fileSize(Dir + "/ssd0/L.iop"), 4096) << "stripes landed in the listed directories";
  EXPECT_GT(fileSize(Dir + "/ssd1/L.iop"), 4096);
  RunResult V = run(cmd("verify", "L", "6"), E);
  ASSERT_EQ(0, V.ExitCode) << V;
}
