//===- DiskListTest.cpp - IOPOLY_DISKS: a count or a list of directories --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// IOPOLY_DISKS is one disk count (1..4096) or a comma list of directories.
// A value that is neither (a negative number, a bare word that could be a
// typo, a list of numbers) is an error that says which reading failed, and
// a directory listed twice is named as such (it used to surface as "File
// exists" when the second disk file was created in the same directory).
//
//===----------------------------------------------------------------------===//
#include "core/Config.h"

#include <gtest/gtest.h>

using namespace iopoly;

namespace {

Status parseDisks(const std::string &Spec, Config &C) {
  return parseConfig(
      [Spec](const char *Name, std::string &Value) {
        if (std::string(Name) != "IOPOLY_DISKS")
          return false;
        Value = Spec;
        return true;
      },
      C);
}

std::string errorOf(const std::string &Spec) {
  Config C;
  Status S = parseDisks(Spec, C);
  EXPECT_FALSE(S.ok()) << "IOPOLY_DISKS=" << Spec << " was accepted with " << C.numDisks() << " disks";
  EXPECT_TRUE(S.is(ErrorCode::Config)) << S.message();
  return S.message();
}

bool has(const std::string &S, const std::string &Part) { return S.find(Part) != std::string::npos; }

} // namespace

TEST(DiskList, ADirectoryListedTwiceIsNamed) {
  std::string E = errorOf("dA,dA");
  EXPECT_TRUE(has(E, "IOPOLY_DISKS=dA,dA: directory 'dA' is listed twice (entries 1 and 2)")) << E;
  E = errorOf("/mnt/a/,/mnt/b,/mnt//a");
  EXPECT_TRUE(has(E, "directory '/mnt//a' is listed twice (entries 1 and 3)")) << E;
  E = errorOf("./d0,d0");
  EXPECT_TRUE(has(E, "listed twice")) << E;
}

TEST(DiskList, NegativeAndMalformedCountsAreErrors) {
  for (const char *Spec : {"-1", "+3", "1.5", "8x", "0x8"}) {
    std::string E = errorOf(Spec);
    EXPECT_TRUE(has(E, std::string("IOPOLY_DISKS=") + Spec + ": '" + Spec + "' is not a disk count")) << E;
  }
}

TEST(DiskList, ABareWordIsNeitherACountNorADirectory) {
  std::string E = errorOf("abc");
  EXPECT_TRUE(has(E, "'abc' is neither a disk count (1..4096) nor a list of directories; write ./abc for one disk "
                     "directory named abc"))
      << E;
}

TEST(DiskList, AListOfNumbersIsAnError) {
  std::string E = errorOf("1,2");
  EXPECT_TRUE(has(E, "entry '1' is a number: IOPOLY_DISKS is one disk count (e.g. 8) or a comma list of "
                     "directories"))
      << E;
}

TEST(DiskList, CountsListsAndSingleDirectoriesStillWork) {
  Config C;
  ASSERT_TRUE(parseDisks("3", C).ok());
  EXPECT_EQ(3u, C.numDisks());
  ASSERT_TRUE(parseDisks("d0,d1,d2,d3", C).ok());
  EXPECT_EQ(4u, C.numDisks());
  ASSERT_TRUE(parseDisks("./abc", C).ok());
  EXPECT_EQ(1u, C.numDisks());
  ASSERT_TRUE(parseDisks("r1/d0,r2/d1", C).ok());
  EXPECT_EQ(2u, C.numDisks());
  ASSERT_TRUE(parseDisks("/scratch/a,/scratch/ab", C).ok());
  EXPECT_EQ(2u, C.numDisks());
}
