//===- ApiRelayoutTest.cpp - iopoly-relayout NAME --to P -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The conversion tool of paper 1, section 4: after it, the array opens in
// the new layout with every element where it was (values are their own
// coordinates), the old layout is refused with a message naming the tool,
// and the array is larger than the buffer (out of core). A crash before the
// new files are complete leaves the old array usable; a crash while the
// files are renamed is refused by the runtime with the command to finish,
// and the next run finishes it.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

#include <filesystem>

using namespace iopoly::test;

class ApiRelayout : public ApiTest {
protected:
  void SetUp() override {
    ApiTest::SetUp();
    // 100x77 doubles = 61600 bytes: 16 stripes of 4 KiB, 8 buffer frames.
    RunResult W = run({"fill2d", "A", "100", "77", "rm"});
    ASSERT_EQ(0, W.ExitCode) << W;
  }
  RunResult relayout(const std::vector<std::string> &Args) {
    std::vector<std::string> A;
    for (const auto &KV : Env)
      A.push_back(KV.first + "=" + KV.second);
    A.push_back(IOPOLY_RELAYOUT_TOOL);
    A.insert(A.end(), Args.begin(), Args.end());
    return runTool("/usr/bin/env", A);
  }
  std::string marker() const { return Dir + "/data/disk0/A.relayout-commit"; }
  void copy(const std::string &From, const std::string &To) {
    std::filesystem::copy_file(From, To, std::filesystem::copy_options::overwrite_existing);
  }
};

TEST_F(ApiRelayout, ConvertsToColumnMajorAndBack) {
  RunResult R = relayout({"A", "--to", "1,0"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "layout 0,1 (row-major) -> 1,0 (column-major), 16 stripes written")) << R;
  R = run({"check2d", "A", "100", "77", "cm"});
  EXPECT_EQ(0, R.ExitCode) << R;
  // The old layout is refused, with the command that converts back.
  R = run({"check2d", "A", "100", "77", "rm"});
  EXPECT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "convert the files with 'iopoly-relayout A --to 0,1'")) << R;
  ASSERT_EQ(0, relayout({"A", "--to", "0,1"}).ExitCode);
  R = run({"check2d", "A", "100", "77", "rm"});
  EXPECT_EQ(0, R.ExitCode) << R;
  for (size_t D = 0; D < 3; ++D)
    EXPECT_EQ(-1, fileSize(Dir + "/data/disk" + std::to_string(D) + "/A.relayout.iop"));
  EXPECT_EQ(-1, fileSize(marker()));
}

TEST_F(ApiRelayout, KeepsChecksumsRight) {
  ASSERT_EQ(0, run({"fill2d", "A", "100", "77", "rm"}, {{"IOPOLY_CHECKSUM", "on"}}).ExitCode);
  Env["IOPOLY_CHECKSUM"] = "on";
  RunResult R = relayout({"A", "--to", "1,0"});
  ASSERT_EQ(0, R.ExitCode) << R;
  R = run({"check2d", "A", "100", "77", "cm"});
  EXPECT_EQ(0, R.ExitCode) << R;
}

TEST_F(ApiRelayout, SameLayoutIsNothingToDo) {
  RunResult R = relayout({"A", "--to", "0,1"});
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A' is already stored in layout 0,1 (row-major)")) << R;
}

TEST_F(ApiRelayout, BadArgumentsAreNamed) {
  RunResult R = relayout({"A", "--to", "0,0"});
  EXPECT_EQ(2, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Err, "--to '0,0' is not a permutation of 0..1")) << R;
  R = relayout({"A", "--to", "0,2"});
  EXPECT_EQ(2, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Err, "'2' is not a dimension of a 2-dimensional array")) << R;
  R = relayout({"Nope", "--to", "1,0"});
  EXPECT_EQ(1, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Err, "array 'Nope' does not exist")) << R;
  R = relayout({"A", "1,0"});
  EXPECT_EQ(2, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Err, "usage: iopoly-relayout NAME --to")) << R;
}

TEST_F(ApiRelayout, ACrashBeforeTheNewFilesAreCompleteLeavesTheOldArray) {
  // What a crash while copying leaves: part of the new array beside the old.
  ASSERT_EQ(0, run({"fill2d", "A.relayout", "100", "77", "cm"}).ExitCode);
  std::filesystem::remove(diskFile(1, "A.relayout"));
  RunResult R = run({"check2d", "A", "100", "77", "rm"});
  EXPECT_EQ(0, R.ExitCode) << R;
  // The next run starts over.
  R = relayout({"A", "--to", "1,0"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_EQ(0, run({"check2d", "A", "100", "77", "cm"}).ExitCode);
  EXPECT_EQ(-1, fileSize(diskFile(0, "A.relayout")));
}

TEST_F(ApiRelayout, ACrashWhileRenamingIsFinishedByTheNextRun) {
  // Build the state after the marker and the first rename: disk 0 has the
  // new file, disks 1 and 2 the old ones with the new ones beside them.
  std::vector<std::string> Old;
  for (size_t D = 0; D < 3; ++D)
    copy(diskFile(D, "A"), Dir + "/old" + std::to_string(D));
  ASSERT_EQ(0, relayout({"A", "--to", "1,0"}).ExitCode);
  for (size_t D = 1; D < 3; ++D) {
    copy(diskFile(D, "A"), diskFile(D, "A.relayout"));
    copy(Dir + "/old" + std::to_string(D), diskFile(D, "A"));
  }
  std::ofstream(marker()) << "iopoly-relayout A --to 1,0\n";
  RunResult R = run({"check2d", "A", "100", "77", "cm"});
  EXPECT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "a conversion by iopoly-relayout was interrupted")) << R;
  EXPECT_TRUE(contains(R.Out, "run 'iopoly-relayout A --to ...' again")) << R;
  R = relayout({"A", "--to", "1,0"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "finished an interrupted conversion")) << R;
  R = run({"check2d", "A", "100", "77", "cm"});
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_EQ(-1, fileSize(marker()));
}

// Allocated arrays whose layout the compiler chose (__iopoly_alloc_layout,
// what a permuted module calls after the allocation): the header records
// the shape and the layout, so another program opens the array in that
// layout and is refused in another, and a rerun reopens it. A module that
// stores the array in another layout, or permuted over data written as
// plain bytes, is stopped with a message naming both.
TEST_F(ApiRelayout, AllocatedArraysRecordTheCompilersLayout) {
  RunResult R = run({"alloc2d", "B", "100", "77", "cm", "trunc"});
  ASSERT_EQ(0, R.ExitCode) << R;
  R = run({"check2d", "B", "100", "77", "cm"});
  EXPECT_EQ(0, R.ExitCode) << R;
  R = run({"check2d", "B", "100", "77", "rm"});
  EXPECT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "convert the files with 'iopoly-relayout B --to 0,1'")) << R;
  R = run({"alloc2d", "B", "100", "77", "cm", "check"});
  EXPECT_EQ(0, R.ExitCode) << R;
  R = run({"alloc2d", "B", "100", "77", "rm", "check"});
  EXPECT_NE(0, R.ExitCode + R.Signal) << R;
  EXPECT_TRUE(contains(R.Err, "array 'B': its files store 100x77 elements of 8 bytes in layout 1,0 (column-major), "
                              "this program stores 100x77 elements of 8 bytes in layout 0,1 (row-major); convert the "
                              "files with 'iopoly-relayout B --to 0,1'"))
      << R;
  // The conversion tool works on them like on any array.
  ASSERT_EQ(0, relayout({"B", "--to", "0,1"}).ExitCode);
  R = run({"alloc2d", "B", "100", "77", "rm", "check"});
  EXPECT_EQ(0, R.ExitCode) << R;
  // Bytes written by a program that knew no layout are never reinterpreted.
  ASSERT_EQ(0, run({"alloc-plain", "C", "61600", "iopoly_free"}).ExitCode);
  R = run({"alloc2d", "C", "100", "77", "cm", "check"});
  EXPECT_NE(0, R.ExitCode + R.Signal) << R;
  EXPECT_TRUE(contains(R.Err, "array 'C': its files hold data written without a file layout")) << R;
  // Bytes in the order of the C array are its elements in row-major order:
  // a module that stores the array row-major (every module under MPI, where
  // the compiler records the element size for the ranks' joins) reads them
  // as written, and the header records the shape from then on.
  ASSERT_EQ(0, run({"plain2d", "D", "100", "77"}).ExitCode);
  R = run({"alloc2d", "D", "100", "77", "rm", "check"});
  EXPECT_EQ(0, R.ExitCode) << R;
  R = run({"alloc2d", "D", "100", "77", "cm", "check"});
  EXPECT_NE(0, R.ExitCode + R.Signal) << R;
  EXPECT_TRUE(contains(R.Err, "array 'D': its files store 100x77 elements of 8 bytes in layout 0,1 (row-major)")) << R;
}
