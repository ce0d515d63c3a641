//===- ApiEnvTest.cpp - Malformed IOPOLY_* values stop iopoly_open --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// In a real process, a malformed IOPOLY_* value makes iopoly_open return
// NULL with iopoly_last_error() naming the variable and the value, and
// nothing is created on disk. Output files that cannot be created are
// reported too: the trace at open, the statistics at exit.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

using namespace iopoly::test;

class ApiEnv : public ApiTest {};

TEST_F(ApiEnv, MalformedValuesNameTheVariableAndValue) {
  const std::pair<const char *, const char *> Bad[] = {
      {"IOPOLY_STRIPE", "64KQ"},     {"IOPOLY_STRIPE", "0"},         {"IOPOLY_BUFFER", "lots"},
      {"IOPOLY_BUFFER", "1K"},       {"IOPOLY_DISKS", "0"},          {"IOPOLY_DISKS", "a,,b"},
      {"IOPOLY_DIR", ""},            {"IOPOLY_BACKEND", "nfs"},      {"IOPOLY_DIRECT", "sometimes"},
      {"IOPOLY_DISK_MODEL", "tape"}, {"IOPOLY_MODEL_WAIT", "yes please"}, {"IOPOLY_IO_RETRIES", "-3"},
      {"IOPOLY_PREFETCH", "2"},      {"IOPOLY_VERBOSE", "very"},
  };
  for (const auto &B : Bad) {
    RunResult R = run({"open", "A", "8", "10", "10", "rm", "create"}, {{B.first, B.second}});
    ASSERT_EQ(3, R.ExitCode) << B.first << "=" << B.second << " was accepted: " << R;
    EXPECT_TRUE(contains(R.Out, "error: iopoly_open: ")) << R;
    EXPECT_TRUE(contains(R.Out, std::string(B.first) + "=" + B.second)) << R;
  }
  EXPECT_EQ(-1, fileSize(Dir + "/data")) << "a refused configuration creates nothing";
}

TEST_F(ApiEnv, UncreatableTraceFileIsReportedAtOpen) {
  std::string Path = Dir + "/no/such/dir/trace.bin";
  RunResult R = run({"open", "A", "8", "10", "10", "rm", "create"}, {{"IOPOLY_TRACE", Path}});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "IOPOLY_TRACE=" + Path + ": cannot create the trace file")) << R;
}

TEST_F(ApiEnv, UnwritableStatsFileIsReportedAtExit) {
  std::string Path = Dir + "/no/such/dir/stats.json";
  RunResult R = run({"open", "A", "8", "10", "10", "rm", "create"}, {{"IOPOLY_STATS", Path}});
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Err, "IOPOLY_STATS: cannot write statistics to '" + Path + "'")) << R;
}
