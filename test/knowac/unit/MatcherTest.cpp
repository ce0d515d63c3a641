//===- MatcherTest.cpp - Matching runs and predicting (paper 5, V.D) -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The run's accesses follow the path found last time; an access off the
// path is matched again from the newest access backwards: older accesses
// are added while several places fit (extend) and dropped when none does
// (shorten). The most visited successor is predicted.
//
//===----------------------------------------------------------------------===//
#include "KnowacTestUtil.h"
#include "Matcher.h"

#include <gtest/gtest.h>

using namespace iopoly::knowac;
using namespace iopoly::knowac::test;

namespace {
std::string key(const std::string &V) { return readOf(V).key(); }
std::string predicted(const Matcher &M) {
  auto P = M.predict(1);
  return P.empty() ? "" : P.front().Key;
}
} // namespace

TEST(Matcher, FollowsTheKnownPathFromTheStart) {
  Graph G;
  G.merge(runOf({"a", "b", "c"}));
  Matcher M(G);
  M.start(Label::start(0, 1).key());
  EXPECT_EQ(predicted(M), key("a")); // nothing read yet: the start vertex
  M.advance(key("a"));
  EXPECT_EQ(predicted(M), key("b"));
  M.advance(key("b"));
  EXPECT_EQ(predicted(M), key("c"));
  EXPECT_EQ(M.followed(), 2u);
  EXPECT_EQ(M.rematched(), 0u);
}

TEST(Matcher, ShortensFromTheOldestWhenNothingMatches) {
  Graph G;
  G.merge(runOf({"a", "b", "c", "d"}));
  Matcher M(G);
  M.start(Label::start(0, 1).key());
  M.advance(key("x")); // never seen: no match
  EXPECT_TRUE(M.position().empty());
  EXPECT_EQ(predicted(M), "");
  M.advance(key("c")); // "x c" fits nowhere; "c" alone does
  ASSERT_EQ(M.position().size(), 1u);
  EXPECT_EQ(predicted(M), key("d"));
}

TEST(Matcher, ExtendsWithOlderAccessesWhenSeveralMatch) {
  // One run reads "t" twice, in two phases: two vertices with that label.
  Graph G;
  G.merge(runOf({"p", "t", "u1", "q", "t", "u2"}));
  ASSERT_EQ(G.withKey(key("t")).size(), 2u);
  const uint32_t SecondT = G.withKey(key("t"))[1];
  Matcher M(G);
  M.start(Label::start(0, 1).key());
  M.advance(key("zz")); // unknown: no match
  M.advance(key("q"));  // matched again, one place
  M.advance(key("t"));  // followed
  EXPECT_EQ(predicted(M), key("u2"));
  // From scratch the sequence "... q t" fits twice on "t" and once on "q t".
  std::vector<uint32_t> Places = M.matchHistory();
  ASSERT_EQ(Places.size(), 1u);
  EXPECT_EQ(Places[0], SecondT);
}

TEST(Matcher, AmbiguousMatchPredictsTheMostVisitedSuccessor) {
  Graph G;
  G.merge(runOf({"p", "t", "u1", "q", "t", "u2"}));
  G.merge(runOf({"p", "t", "u1", "q", "t", "u2"}));
  G.merge(runOf({"p", "t", "u1", "q", "t", "u2", "r", "t", "u2"}));
  ASSERT_EQ(G.withKey(key("t")).size(), 3u);
  Matcher M(G);
  M.start(Label::start(0, 1).key());
  M.advance(key("zz"));
  M.advance(key("t")); // "zz t" fits nowhere: shortened to "t", three places
  EXPECT_EQ(M.position().size(), 3u);
  EXPECT_EQ(predicted(M), key("u2")); // u2 follows "t" 4 times, u1 3 times
}

TEST(Matcher, TiesGoToTheLowerVertex) {
  Graph G;
  G.merge(runOf({"a", "b"}));
  G.merge(runOf({"a", "c"}));
  Matcher M(G);
  M.start(Label::start(0, 1).key());
  M.advance(key("a"));
  EXPECT_EQ(predicted(M), key("b"));
}

TEST(Matcher, PredictsSeveralStepsWithTheirIdleTime) {
  Graph G;
  G.merge(runOf({"a", "b", "c", "d"}, 0.25, 0.125));
  Matcher M(G);
  M.start(Label::start(0, 1).key());
  M.advance(key("a"));
  auto P = M.predict(10);
  ASSERT_EQ(P.size(), 3u);
  EXPECT_EQ(P[2].Key, key("d"));
  EXPECT_DOUBLE_EQ(P[0].GapSeconds, 0.25);
  EXPECT_DOUBLE_EQ(P[0].IoSeconds, 0.125);
  EXPECT_EQ(P[0].Bytes, 4096u);
}
