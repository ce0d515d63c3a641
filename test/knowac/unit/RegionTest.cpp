//===- RegionTest.cpp - Boxes and shape-relative region keys --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A key learned on one input materializes on an input of another size when
// the program's regions are whole dimensions, single indices or shares of
// a dimension (a rank's cells); otherwise it does not materialize at all.
//
//===----------------------------------------------------------------------===//
#include "Region.h"

#include <gtest/gtest.h>

using namespace iopoly::knowac;

namespace {
Box box(std::vector<int64_t> S, std::vector<int64_t> C, std::vector<int64_t> St = {}) {
  if (St.empty())
    St.assign(S.size(), 1);
  return Box{S, C, St};
}
Shape shape(std::vector<int64_t> L) { return Shape{L}; }
} // namespace

TEST(Region, KeysAreRelativeToTheShape) {
  Shape S = shape({10, 1000, 16});
  EXPECT_EQ(regionKey(box({3, 250, 0}, {1, 250, 16}), S), "=3,1/4+1/4,*");
  EXPECT_EQ(regionKey(box({0, 0, 0}, {10, 1000, 16}), S), "*,*,*");
  EXPECT_EQ(regionKey(box({0, 0, 0}, {10, 500, 16}, {1, 2, 1}), S), "*,0+1/2:2,*");
  EXPECT_EQ(regionKey(Box{}, Shape{}), "");
}

TEST(Region, KeysMaterializeOnOtherSizes) {
  Box B;
  ASSERT_TRUE(materialize("=3,1/4+1/4,*", shape({5, 2000, 8}), B));
  EXPECT_EQ(B, box({3, 500, 0}, {1, 500, 8}));
  // Fractions that are not whole indices, or indices outside, do not.
  EXPECT_FALSE(materialize("=3,1/4+1/4,*", shape({5, 1002, 8}), B));
  EXPECT_FALSE(materialize("=7,*,*", shape({5, 100, 8}), B));
  EXPECT_FALSE(materialize("*,*", shape({5, 100, 8}), B));
  EXPECT_FALSE(materialize("junk", shape({5}), B));
  ASSERT_TRUE(materialize("", Shape{}, B));
  EXPECT_EQ(B.rank(), 0u);
}

TEST(Region, ContainmentRespectsStrides) {
  Box Have = box({0, 0}, {4, 10}, {1, 2}); // columns 0,2,...,18
  EXPECT_TRUE(Have.contains(box({1, 2}, {2, 3}, {1, 4})));
  EXPECT_FALSE(Have.contains(box({1, 1}, {1, 1})));  // odd column
  EXPECT_FALSE(Have.contains(box({1, 2}, {1, 2})));  // columns 2,3
  EXPECT_FALSE(Have.contains(box({3, 0}, {2, 1})));  // row 4
  EXPECT_FALSE(Have.contains(box({0, 0}, {0, 1})));  // empty: never served
  EXPECT_TRUE(Have.overlaps(box({3, 17}, {5, 5})));
  EXPECT_FALSE(Have.overlaps(box({4, 0}, {1, 1})));
}
