//===- OptionsTest.cpp - IOPOLY_KNOWAC* parsing ----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Bad values and unknown names are errors naming the variable; defaults
// follow the documented table.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include <gtest/gtest.h>

#include <map>

using namespace iopoly::knowac;

namespace {
Error parse(const std::map<std::string, std::string> &Env, Options &O) {
  auto Get = [&](const char *N) -> const char * {
    auto It = Env.find(N);
    return It == Env.end() ? nullptr : It->second.c_str();
  };
  auto Names = [&] {
    std::vector<std::string> V;
    for (const auto &KV : Env)
      V.push_back(KV.first);
    return V;
  };
  return parseOptions(Get, Names, O);
}
} // namespace

TEST(Options, Defaults) {
  Options O;
  ASSERT_FALSE(parse({{"HOME", "/home/me"}}, O));
  EXPECT_EQ(O.M, Mode::Prefetch);
  EXPECT_EQ(O.Current, "default");
  EXPECT_EQ(O.Db, "/home/me/.cache/iopoly/knowac.db");
  EXPECT_EQ(O.CacheBytes, size_t(256) << 20);
  ASSERT_FALSE(parse({{"XDG_CACHE_HOME", "/c"}, {"HOME", "/home/me"}}, O));
  EXPECT_EQ(O.Db, "/c/iopoly/knowac.db");
}

TEST(Options, Values) {
  Options O;
  ASSERT_FALSE(parse({{"IOPOLY_KNOWAC", "learn"},
                      {"IOPOLY_KNOWAC_APP", "pgea"},
                      {"IOPOLY_KNOWAC_CURRENT", "fast"},
                      {"IOPOLY_KNOWAC_DB", "/tmp/k.db"},
                      {"IOPOLY_KNOWAC_CACHE", "64M"},
                      {"IOPOLY_KNOWAC_MIN_IDLE", "5ms"},
                      {"IOPOLY_KNOWAC_LOOKAHEAD", "8"},
                      {"IOPOLY_KNOWAC_DRY_RUN", "1"},
                      {"IOPOLY_STATS", "s-%r.json"}},
                     O));
  EXPECT_EQ(O.M, Mode::Learn);
  EXPECT_EQ(O.App, "pgea");
  EXPECT_EQ(O.Current, "fast");
  EXPECT_EQ(O.Db, "/tmp/k.db");
  EXPECT_EQ(O.CacheBytes, size_t(64) << 20);
  EXPECT_DOUBLE_EQ(O.MinIdleSec, 0.005);
  EXPECT_EQ(O.Lookahead, 8u);
  EXPECT_TRUE(O.DryRun);
  EXPECT_EQ(O.StatsPath, "s-%r.json");
}

TEST(Options, BadValuesNameTheVariable) {
  Options O;
  for (auto KV : std::vector<std::pair<std::string, std::string>>{{"IOPOLY_KNOWAC", "maybe"},
                                                   {"IOPOLY_KNOWAC_CACHE", "12Q"},
                                                   {"IOPOLY_KNOWAC_CACHE", "0"},
                                                   {"IOPOLY_KNOWAC_APP", ""},
                                                   {"IOPOLY_KNOWAC_LOOKAHEAD", "-3"},
                                                   {"IOPOLY_KNOWAC_MIN_IDLE", "soon"},
                                                   {"IOPOLY_KNOWAC_DRY_RUN", "2"},
                                                   {"IOPOLY_KNOWAC_CACH", "1M"}}) {
    Error E = parse({{KV.first, KV.second}}, O);
    ASSERT_TRUE(E) << KV.first << "=" << KV.second;
    EXPECT_EQ(E.code(), Errc::BadOption);
    EXPECT_NE(E.message().find(KV.first), std::string::npos) << E.message();
  }
}
