//===- ApiAllocTest.cpp - iopoly_alloc memory outside compiled code -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Memory from iopoly_alloc belongs to an array that iopoly_array_of finds
// (ordinary memory belongs to none); it cannot be closed with iopoly_close;
// and with the page-fault service off (IOPOLY_FAULTS=off), touching it from
// code that was not compiled with the plugin stops the program with a
// message naming the array and the byte, instead of corrupting anything.
// With the service on, such code works: ApiFaultTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

using namespace iopoly::test;

class ApiAlloc : public ApiTest {};

TEST_F(ApiAlloc, DirectAccessStopsTheProgramNamingTheArrayWhenFaultsAreOff) {
  RunResult R = run({"alloc-touch", "scratch", "1048576", "100"}, {{"IOPOLY_FAULTS", "off"}});
  EXPECT_EQ(-1, R.ExitCode) << "the program must not go on: " << R;
  EXPECT_EQ(SIGABRT, R.Signal) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly_close: array 'scratch' belongs to iopoly_alloc memory; use iopoly_free")) << R;
  EXPECT_TRUE(contains(R.Err, "iopoly: fatal: direct access to disk-resident array 'scratch' (byte 100 of 1048576)"))
      << R;
  EXPECT_FALSE(contains(R.Err, "did not stop")) << R;
}

// iopoly_alloc_elems: the files record the element size; a program that
// stores other elements in them is refused naming both; sizes that are no
// memory or overflow are errors naming the array, not crashes.
TEST_F(ApiAlloc, ElementsRecordTheirSize) {
  RunResult R = run({"alloc-elems", "E", "1000", "8", "trunc"});
  ASSERT_EQ(0, R.ExitCode) << R;
  R = run({"alloc-elems", "E", "1000", "8", "check"});
  EXPECT_EQ(0, R.ExitCode) << R;
  R = run({"alloc-elems", "E", "2000", "4", "check"});
  EXPECT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'E': its files store 1000 elements of 8 bytes")) << R;
  EXPECT_TRUE(contains(R.Out, "this program stores 2000 elements of 4 bytes")) << R;
  R = run({"alloc-elems", "Z", "0", "8", "trunc"});
  EXPECT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'Z': 0 elements of 8 bytes is no memory")) << R;
  R = run({"alloc-elems", "O", "4611686018427387904", "16", "trunc"});
  EXPECT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'O': 4611686018427387904 elements of 16 bytes overflow 64 bits")) << R;
  // The old array is still intact after the refused reuse.
  R = run({"alloc-elems", "E", "1000", "8", "check"});
  EXPECT_EQ(0, R.ExitCode) << R;
}
