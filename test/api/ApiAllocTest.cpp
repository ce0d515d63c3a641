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
