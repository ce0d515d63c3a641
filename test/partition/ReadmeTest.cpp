//===- ReadmeTest.cpp - The README documents the profile variables ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// runtime/profile/mpi/Options.h lists every IOPOLY_* variable of the
// profiler and the partition layer; the README's table of the component
// must have a row for each ("| `NAME=`..."). (The runtime's own table is
// checked by test/unit/ReadmeTest.cpp.)
//
//===----------------------------------------------------------------------===//
#include "mpi/Options.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

TEST(Readme, DocumentsEveryProfileVariable) {
  std::ifstream In(std::string(IOPOLY_SOURCE_DIR) + "/README.md");
  std::stringstream SS;
  SS << In.rdbuf();
  std::string R = SS.str();
  ASSERT_FALSE(R.empty()) << "README.md not found";
  for (const char *V : iopoly::prof::kOptionVariables)
    EXPECT_NE(std::string::npos, R.find("`" + std::string(V) + "=`")) << V << " is not in the README";
}
