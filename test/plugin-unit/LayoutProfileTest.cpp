//===- LayoutProfileTest.cpp - The layout profile reader -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The text format of plugin/Support/LayoutProfile.h as the runtime writes
// it (runtime/lowered/LayoutProfile.cpp), and the errors a damaged file
// gets.
//
//===----------------------------------------------------------------------===//
#include "Support/LayoutProfile.h"

#include <gtest/gtest.h>

using namespace iopoly;

TEST(LayoutProfile, ReadsWhatTheRuntimeWrites) {
  LayoutProfile P;
  ASSERT_EQ("", parseLayoutProfile("iopoly-layout-profile 1\n"
                                   "# unit array function site kind count where\n"
                                   "/src/k.c W main 0 store 7680 k.c:20:15\n"
                                   "/src/k.c W main 1 load 23040 -\n"
                                   "/src/k.c\tA\tmain 0 load 18446744073709551615 -\n",
                                   "p.txt", P));
  ASSERT_EQ(3u, P.Sites.size());
  EXPECT_TRUE(P.Sites[0].Store);
  EXPECT_EQ(23040u, P.Sites[1].Count);
  EXPECT_EQ(18446744073709551615ull, P.Sites[2].Count);
  EXPECT_EQ(2u, P.sitesOf("/src/k.c", "W").size());
  // The same source compiled from elsewhere matches by file name.
  EXPECT_EQ(2u, P.sitesOf("k.c", "W").size());
  EXPECT_EQ(0u, P.sitesOf("k.c", "B").size());
  EXPECT_EQ(0u, P.sitesOf("other.c", "W").size());
}

TEST(LayoutProfile, FileNameMatchNeedsOneUnitOfThatName) {
  LayoutProfile P;
  ASSERT_EQ("", parseLayoutProfile("iopoly-layout-profile 1\n"
                                   "a/k.c W f 0 load 1 -\n"
                                   "b/k.c W f 0 load 2 -\n",
                                   "p.txt", P));
  EXPECT_EQ(0u, P.sitesOf("k.c", "W").size());
  EXPECT_EQ(1u, P.sitesOf("b/k.c", "W").size());
}

TEST(LayoutProfile, DamagedFilesNameTheLine) {
  LayoutProfile P;
  EXPECT_EQ("p.txt: empty: not an iopoly layout profile", parseLayoutProfile("\n# nothing\n", "p.txt", P));
  EXPECT_EQ("p.txt:1: not an iopoly layout profile (the first line must be 'iopoly-layout-profile 1')",
            parseLayoutProfile("iopoly-layout-profile 2\n", "p.txt", P));
  EXPECT_EQ("p.txt:2: expected 7 fields 'unit array function site kind count where', found 6",
            parseLayoutProfile("iopoly-layout-profile 1\nk.c W main 0 load 5\n", "p.txt", P));
  EXPECT_EQ("p.txt:2: kind 'read' is not load or store",
            parseLayoutProfile("iopoly-layout-profile 1\nk.c W main 0 read 5 -\n", "p.txt", P));
  EXPECT_EQ("p.txt:2: count '-5' is not a number",
            parseLayoutProfile("iopoly-layout-profile 1\nk.c W main 0 load -5 -\n", "p.txt", P));
  EXPECT_EQ("p.txt:3: site 0 of 'W' in 'main' (k.c) is listed twice (also on line 2)",
            parseLayoutProfile("iopoly-layout-profile 1\nk.c W main 0 load 5 -\nk.c W main 0 load 6 -\n", "p.txt", P));
}

TEST(LayoutProfile, FieldsHaveNoBlanks) {
  EXPECT_EQ("my?file.c", profileField("my file.c"));
  EXPECT_EQ("-", profileField(""));
}
