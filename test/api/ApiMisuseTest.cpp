//===- ApiMisuseTest.cpp - Wrong calls get clear errors, not crashes ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Out-of-range blocks, release without attach, double close, writing a
// read-only array and attaching more blocks than the buffer holds each
// return an error naming the function, the array and the value, and leave
// the array usable (api_helper checks that it still works afterwards).
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

using namespace iopoly::test;

class ApiMisuse : public ApiTest {};

TEST_F(ApiMisuse, OutOfRangeBlocksAreErrors) {
  RunResult R = run({"out-of-range", "M", "128", "64"}); // 16 blocks
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_attach: block 16 of array 'M' is out of range (the array has 16 blocks of "
                              "4096 bytes)"))
      << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_release: block 21 of array 'M' is out of range")) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_prefetch: block 18446744073709551615 of array 'M' is out of range")) << R;
}

TEST_F(ApiMisuse, ReleaseWithoutAttachIsAnError) {
  RunResult R = run({"release-unattached", "M", "128", "64"});
  ASSERT_EQ(3, R.ExitCode) << R;
  const std::string Msg = "iopoly_release: block 1 of array 'M' is not attached (release without attach)";
  size_t First = R.Out.find(Msg);
  ASSERT_NE(std::string::npos, First) << R;
  EXPECT_NE(std::string::npos, R.Out.find(Msg, First + 1)) << "a second release is an error too: " << R;
}

TEST_F(ApiMisuse, DoubleCloseIsAnError) {
  RunResult R = run({"double-close", "M", "128", "64"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "is not an open array (closed twice?)")) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_close: array handle is NULL")) << R;
}

TEST_F(ApiMisuse, WriteAttachOnAReadOnlyArrayIsAnError) {
  RunResult R = run({"write-readonly", "M", "128", "64"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_attach: array 'M' is open read-only; cannot attach block 0 for writing")) << R;
}

TEST_F(ApiMisuse, AttachingMoreThanTheBufferHoldsIsAnErrorNotADeadlock) {
  RunResult R = run({"overfill", "M", "128", "64"}); // 16 blocks, 8 frames
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_attach: stripe buffer full: cannot bring in block 8 of array 'M' because all "
                              "8 frames are attached ('M' 8)"))
      << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_close: array 'M': array 'M' still has 8 attached block(s)")) << R;
}

TEST_F(ApiMisuse, TwoProcessesCannotWriteOneArray) {
  RunResult R = run({"lock-conflict", "M", "128", "64"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_open: array 'M' is in use by another process (lock '")) << R;
  EXPECT_TRUE(contains(R.Out, "/disk0/M.lock'); processes and MPI ranks that write an array need their own "
                              "IOPOLY_DIR or their own array names"))
      << R;
}
