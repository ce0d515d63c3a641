//===- ReadmeTest.cpp - The README documents every IOPOLY_* variable -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The variable table of runtime/core/Config.cpp is the truth; the README is the
// user's manual. A variable added to one and not the other fails here.
//
//===----------------------------------------------------------------------===//
#include "core/Config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace iopoly;

static std::string readme() {
  std::ifstream In(std::string(IOPOLY_SOURCE_DIR) + "/README.md");
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

TEST(Readme, DocumentsEveryVariableOfTheTable) {
  std::string R = readme();
  ASSERT_FALSE(R.empty()) << "README.md not found";
  for (const EnvVarDoc &D : envVarDocs())
    EXPECT_NE(std::string::npos, R.find("| `" + std::string(D.Name) + "` |")) << D.Name << " is not in the README table";
}

TEST(Readme, DocumentsNoVariableThatDoesNotExist) {
  std::string R = readme();
  std::set<std::string> Known;
  for (const EnvVarDoc &D : envVarDocs())
    Known.insert(D.Name);
  std::regex Row("\\| `(IOPOLY_[A-Z_]+)` \\|");
  for (std::sregex_iterator It(R.begin(), R.end(), Row), End; It != End; ++It)
    if ((*It)[1].str().rfind("IOPOLY_KNOWAC", 0) != 0) // KNOWAC's table: test/knowac/unit/ReadmeTest.cpp
      EXPECT_TRUE(Known.count((*It)[1])) << (*It)[1] << " is in the README table but not in runtime/core/Config.cpp";
}
