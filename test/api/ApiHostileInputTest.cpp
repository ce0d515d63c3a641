//===- ApiHostileInputTest.cpp - Absurd sizes and bad arguments -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The C API never throws and never aborts on bad input: each case returns
// NULL or -1 (or (size_t)-1) with iopoly_last_error() naming the function,
// the array and the value. Sizes are checked for overflow before anything
// is allocated, and memory follows what is used, not the array's extent or
// the buffer's capacity (api_hostile.c prints the peak RSS).
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

using namespace iopoly::test;

namespace {

/// Peak resident memory (KiB) the helper printed.
long maxRss(const RunResult &R) {
  size_t P = R.Out.find("maxrss ");
  return P == std::string::npos ? -1 : std::atol(R.Out.c_str() + P + 7);
}

/// Far below the gigabytes the old per-block tables took, far above what a
/// small run needs even under AddressSanitizer.
constexpr long RssLimitKiB = 200 * 1024;

} // namespace

class ApiHostile : public ApiTest {};

TEST_F(ApiHostile, BufferLargerThanTheMachineIsAnErrorNotAnAbort) {
  RunResult R = run({"small-rw", "X", "10000"}, {{"IOPOLY_BUFFER", "100T"}});
  ASSERT_EQ(0, R.Signal) << R;
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "error: iopoly_open: iopoly_open: IOPOLY_BUFFER=100T")) << R;
}

TEST_F(ApiHostile, HugeBufferCostsMemoryOnlyForTheFramesUsed) {
  // 1T is more than this machine has, so the check above refuses it; 16G of
  // frames for an 80 KB array must cost what 80 KB cost.
  RunResult R = run({"small-rw", "X", "10000"}, {{"IOPOLY_BUFFER", "16G"}});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_GT(maxRss(R), 0) << R;
  EXPECT_LT(maxRss(R), RssLimitKiB) << R;
}

TEST_F(ApiHostile, ElementCountsNearSizeMaxAreErrorsOrWorkAndCostLittleMemory) {
  for (const char *Count : {"0xffffffffffffffff", "0xfffffffffffff000", "0x10000000000000" /* 2^52 */}) {
    RunResult R = run({"open-bytes", "X", "1", Count});
    SCOPED_TRACE(Count);
    ASSERT_EQ(0, R.Signal) << R;
    ASSERT_TRUE(R.ExitCode == 0 || R.ExitCode == 3) << R;
    if (R.ExitCode == 3)
      EXPECT_TRUE(contains(R.Out, "error: iopoly_open: iopoly_open: ") && contains(R.Out, "array 'X'")) << R;
    else
      EXPECT_FALSE(contains(R.Out, "opened blocks 0 ")) << R;
    EXPECT_GT(maxRss(R), 0) << R;
    EXPECT_LT(maxRss(R), RssLimitKiB) << R;
  }
}

TEST_F(ApiHostile, SizeOverflowIsAnErrorNamingTheArray) {
  RunResult R = run({"open-bytes", "X", "8", "0x2000000000000001"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'X': the array size overflows 64 bits")) << R;
}

TEST_F(ApiHostile, AllocationBeyondTheAddressSpaceIsAnErrorAndCreatesNothing) {
  RunResult R = run({"alloc-bytes", "X", "0x4000000000000000"}); // 2^62
  ASSERT_EQ(0, R.Signal) << R;
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "error: iopoly_alloc: iopoly_alloc: array 'X'")) << R;
  EXPECT_TRUE(contains(R.Out, "disk-resident address space")) << R;
  EXPECT_EQ(-1, fileSize(diskFile(0, "X"))) << "a refused allocation leaves no file behind";
  EXPECT_LT(maxRss(R), RssLimitKiB) << R;
}

TEST_F(ApiHostile, OffsetWithNullOrOutOfRangeIndicesIsAnError) {
  RunResult R = run({"offset-bad", "X"});
  ASSERT_EQ(0, R.Signal) << R;
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "offset 1592\n")) << R; // (9 * 20 + 19) * 8
  EXPECT_TRUE(contains(R.Out, "error: iopoly_offset NULL: iopoly_offset: array 'X': the index array is NULL")) << R;
  EXPECT_TRUE(contains(R.Out, "error: iopoly_offset range: iopoly_offset: index 20 of dimension 1 is out of range "
                              "for array 'X' (extent 20)"))
      << R;
  EXPECT_TRUE(contains(R.Out, "error: iopoly_offset handle: iopoly_offset: array handle is NULL")) << R;
}

TEST_F(ApiHostile, UnknownFlagBitsAreNamed) {
  RunResult R = run({"open-flags", "X", "14"}); // CREATE | 0x10
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'X': unknown flag bits 0x10 in 0x14 (known: IOPOLY_RDONLY 0x1, IOPOLY_RDWR 0x2, "
                              "IOPOLY_CREATE 0x4, IOPOLY_TRUNC 0x8)"))
      << R;
  EXPECT_FALSE(contains(R.Out, "IOPOLY_TRUNC needs")) << R;
  R = run({"open-flags", "X", "9"}); // RDONLY | TRUNC
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'X': IOPOLY_TRUNC needs IOPOLY_CREATE (flags 0x9)")) << R;
  R = run({"open-flags", "X", "6"}); // RDWR | CREATE
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "must contain exactly one of IOPOLY_RDONLY, IOPOLY_RDWR, IOPOLY_CREATE")) << R;
}

TEST_F(ApiHostile, VectorIoOnDiskResidentMemoryWorks) {
  // readv into a stripe that is not mapped used to fail with EFAULT,
  // naming nothing; the vector calls now go through the stripe buffer.
  RunResult R = run({"vec-io", "V"});
  EXPECT_EQ(0, R.Signal) << R;
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "vec ok")) << R;
}
