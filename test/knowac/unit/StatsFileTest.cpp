//===- StatsFileTest.cpp - Where the knowac statistics go ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// writeStats follows the rules of every file the runtime writes at a path
// the user gave (runtime/core/OutputFile.h): the knowac member is merged
// into this process's statistics, a symbolic link is followed and kept, a
// directory is refused with a message, and nothing is left beside.
//
//===----------------------------------------------------------------------===//
#include "DirEntries.h"
#include "KnowacStats.h"
#include "KnowacTestUtil.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace iopoly::knowac;
using namespace iopoly::knowac::test;

namespace {

std::string readAll(const std::string &P) {
  std::ifstream In(P);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

using iopoly::test::dirEntries;

const nlohmann::ordered_json Member = {{"predictions", 3}, {"hits", 2}};

} // namespace

TEST(StatsFile, MergesIntoThisProcesssStatistics) {
  Scratch S;
  std::ofstream(S.file("s.json")) << "{\"stripe_fetches\": 7}\n";
  ASSERT_EQ("", writeStats(S.file("s.json"), Member, 0));
  auto J = nlohmann::json::parse(readAll(S.file("s.json")));
  EXPECT_EQ(7, J["stripe_fetches"]);
  EXPECT_EQ(2, J["knowac"]["hits"]);
  EXPECT_EQ(std::vector<std::string>{"s.json"}, dirEntries(S.Dir));
}

TEST(StatsFile, ASymlinkIsFollowedAndKept) {
  Scratch S;
  ASSERT_EQ(0, ::mkdir(S.file("elsewhere").c_str(), 0755));
  std::ofstream(S.file("elsewhere/real.json")) << "{\"stripe_fetches\": 7}\n";
  ASSERT_EQ(0, ::symlink("elsewhere/real.json", S.file("s.json").c_str()));
  ASSERT_EQ("", writeStats(S.file("s.json"), Member, 0));
  struct stat St;
  ASSERT_EQ(0, ::lstat(S.file("s.json").c_str(), &St));
  EXPECT_TRUE(S_ISLNK(St.st_mode)) << "the link was replaced";
  auto J = nlohmann::json::parse(readAll(S.file("elsewhere/real.json")));
  EXPECT_EQ(7, J["stripe_fetches"]);
  EXPECT_EQ(3, J["knowac"]["predictions"]);
  EXPECT_EQ((std::vector<std::string>{"elsewhere", "s.json"}), dirEntries(S.Dir));
  EXPECT_EQ(std::vector<std::string>{"real.json"}, dirEntries(S.file("elsewhere")));
}

TEST(StatsFile, ADirectoryIsRefusedWithAMessage) {
  Scratch S;
  ASSERT_EQ(0, ::mkdir(S.file("s.json").c_str(), 0755));
  std::string Err = writeStats(S.file("s.json"), Member, 0);
  EXPECT_EQ("cannot write statistics to '" + S.file("s.json") + "': it is a directory", Err);
  EXPECT_EQ(std::vector<std::string>{"s.json"}, dirEntries(S.Dir));
  EXPECT_TRUE(dirEntries(S.file("s.json")).empty());
}
