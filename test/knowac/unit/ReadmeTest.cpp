//===- ReadmeTest.cpp - The README documents every IOPOLY_KNOWAC* variable -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The table of runtime/knowac/Options.cpp is the truth; the README's KNOWAC
// section is the user's manual. A variable in one and not the other fails.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace iopoly::knowac;

namespace {
std::string readme() {
  std::ifstream In(std::string(IOPOLY_SOURCE_DIR) + "/README.md");
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}
} // namespace

TEST(KnowacReadme, DocumentsEveryVariable) {
  std::string R = readme();
  ASSERT_FALSE(R.empty()) << "README.md not found";
  for (const OptionDoc &D : optionDocs())
    EXPECT_NE(std::string::npos, R.find("| `" + std::string(D.Name) + "` |")) << D.Name << " is not in the README";
}

TEST(KnowacReadme, DocumentsNoVariableThatDoesNotExist) {
  std::string R = readme();
  std::set<std::string> Known;
  for (const OptionDoc &D : optionDocs())
    Known.insert(D.Name);
  std::regex Row("\\| `(IOPOLY_KNOWAC[A-Z_]*)` \\|");
  int Rows = 0;
  for (std::sregex_iterator It(R.begin(), R.end(), Row), End; It != End; ++It, ++Rows)
    EXPECT_TRUE(Known.count((*It)[1])) << (*It)[1] << " is in the README but not in runtime/knowac/Options.cpp";
  EXPECT_GT(Rows, 5);
}
