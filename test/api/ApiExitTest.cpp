//===- ApiExitTest.cpp - A failed write-back at exit is not a success -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A program that exits without closing an array relies on the at-exit
// write-back. When that fails (here: the process may not grow files past
// 64 KiB, so writes to the far end of the disk files fail with EFBIG, as a
// full disk fails with ENOSPC), the process exits with status 74
// (IOPOLY_EXIT_UNSAVED) instead of 0, says so on stderr, and leaves the
// unwritten blocks in a rescue file that 'iopoly-fsck NAME --repair' writes
// back once there is room: nothing is lost.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

using namespace iopoly::test;

class ApiExit : public ApiTest {
protected:
  RunResult fsck(const std::vector<std::string> &Args) {
    std::vector<std::string> A = {"env"};
    for (const auto &KV : Env)
      A.push_back(KV.first + "=" + KV.second);
    A.push_back(IOPOLY_FSCK_TOOL);
    A.insert(A.end(), Args.begin(), Args.end());
    return runTool("/usr/bin/env", std::vector<std::string>(A.begin() + 1, A.end()));
  }
};

TEST_F(ApiExit, AFailedWriteBackAtExitFailsTheProcessAndRescuesTheData) {
  // 120 blocks on 3 disks: blocks 112..119 sit beyond 64 KiB in their files.
  ASSERT_EQ(0, run({"fill", "A", "120", "0", "trunc", "close"}).ExitCode);
  RunResult R = run({"fill-range", "A", "120", "112", "8", "7"}, {{"HELPER_FSIZE_LIMIT", "65536"}});
  EXPECT_EQ(74, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "written, exiting without close")) << R;
  EXPECT_TRUE(contains(R.Err, "iopoly: error: at exit, array 'A' could not be written back")) << R;
  EXPECT_TRUE(contains(R.Err, "its 8 unwritten block(s) were saved to '")) << R;
  EXPECT_TRUE(contains(R.Err, "run 'iopoly-fsck A --repair'")) << R;
  // Until repaired the array is refused, never read half-written.
  R = run({"check-range", "A", "120", "112", "8", "7"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "was being written when its process stopped")) << R;
  // With room again, the repair writes the rescued blocks back.
  R = fsck({"A", "--repair"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "wrote back 8 block(s) from the rescue file")) << R;
  R = run({"check-range", "A", "120", "112", "8", "7"});
  EXPECT_EQ(0, R.ExitCode) << R;
}
