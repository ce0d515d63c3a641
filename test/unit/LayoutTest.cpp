//===- LayoutTest.cpp - Striping, file offsets and dimension permutations -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Stripe b lives on disk b mod T, in slot b div T after the header; the last
// stripe may be partial but its slot is whole; file sizes follow; element
// offsets follow the file layout (row-major, column-major or any
// permutation), and every layout is a bijection onto the file's bytes.
//
//===----------------------------------------------------------------------===//
#include "core/Layout.h"

#include <gtest/gtest.h>

#include <set>

using namespace iopoly;

namespace {

Geometry geo(size_t Elem, std::vector<size_t> Dims, const int *Layout, size_t Stripe, size_t Disks) {
  Geometry G;
  Status S = Geometry::make(Elem, static_cast<int>(Dims.size()), Dims.data(), Layout, Stripe, Disks, G);
  EXPECT_TRUE(S.ok()) << S.message();
  return G;
}

} // namespace

TEST(LayoutStriping, StripeMapsToDiskSlotAndFileOffset) {
  Geometry G = geo(1, {10 * 100}, nullptr, 100, 3);
  ASSERT_EQ(10u, G.numStripes());
  for (size_t B = 0; B < 10; ++B) {
    EXPECT_EQ(B % 3, G.diskOf(B)) << B;
    EXPECT_EQ(B / 3, G.slotOf(B)) << B;
    EXPECT_EQ(HeaderBytes + (B / 3) * 100, G.fileOffset(B)) << B;
  }
  EXPECT_EQ(0u, HeaderBytes % 4096) << "stripes must stay aligned for O_DIRECT";
}

TEST(LayoutStriping, PartialLastStripeHasFewerUsefulBytesButAWholeSlot) {
  Geometry G = geo(8, {125}, nullptr, 64, 3); // 1000 bytes
  ASSERT_EQ(1000u, G.TotalBytes);
  ASSERT_EQ(16u, G.numStripes());
  for (size_t B = 0; B < 15; ++B)
    EXPECT_EQ(64u, G.stripeBytes(B));
  EXPECT_EQ(1000u - 15 * 64, G.stripeBytes(15));
  // Stripe 15 is on disk 0, slot 5; its slot still takes a full stripe.
  EXPECT_EQ(0u, G.diskOf(15));
  EXPECT_EQ(G.fileOffset(15) + 64, G.expectedFileSize(0));
}

TEST(LayoutStriping, ExpectedFileSizesCoverEverySlot) {
  Geometry G = geo(8, {125}, nullptr, 64, 3); // 16 stripes on 3 disks: 6, 5, 5
  EXPECT_EQ(6u, G.slotsOnDisk(0));
  EXPECT_EQ(5u, G.slotsOnDisk(1));
  EXPECT_EQ(5u, G.slotsOnDisk(2));
  EXPECT_EQ(HeaderBytes + 6 * 64, G.expectedFileSize(0));
  EXPECT_EQ(HeaderBytes + 5 * 64, G.expectedFileSize(1));
  EXPECT_EQ(HeaderBytes + 5 * 64, G.expectedFileSize(2));

  // More disks than stripes: the extra disks hold only a header.
  Geometry Small = geo(1, {100}, nullptr, 64, 4);
  EXPECT_EQ(2u, Small.numStripes());
  EXPECT_EQ(HeaderBytes + 64, Small.expectedFileSize(1));
  EXPECT_EQ(HeaderBytes, Small.expectedFileSize(2));
  EXPECT_EQ(HeaderBytes, Small.expectedFileSize(3));
}

TEST(LayoutStriping, ExactMultipleHasNoPartialStripe) {
  Geometry G = geo(4, {16, 16}, nullptr, 256, 2); // 1024 bytes = 4 stripes
  EXPECT_EQ(4u, G.numStripes());
  EXPECT_EQ(256u, G.stripeBytes(3));
  EXPECT_EQ(2u, G.slotsOnDisk(0));
  EXPECT_EQ(2u, G.slotsOnDisk(1));
}

TEST(LayoutOffsets, RowMajorByDefault) {
  Geometry G = geo(8, {3, 5}, nullptr, 64, 1);
  EXPECT_TRUE(G.isRowMajor());
  EXPECT_EQ("0,1", G.layoutString());
  EXPECT_EQ("3x5", G.dimsString());
  for (size_t I = 0; I < 3; ++I)
    for (size_t J = 0; J < 5; ++J) {
      size_t Idx[2] = {I, J};
      EXPECT_EQ((I * 5 + J) * 8, G.elementOffset(Idx));
    }
}

TEST(LayoutOffsets, ColumnMajorPermutation) {
  const int ColMajor[2] = {1, 0};
  Geometry G = geo(8, {3, 5}, ColMajor, 64, 1);
  EXPECT_FALSE(G.isRowMajor());
  EXPECT_EQ("1,0", G.layoutString());
  for (size_t I = 0; I < 3; ++I)
    for (size_t J = 0; J < 5; ++J) {
      size_t Idx[2] = {I, J};
      EXPECT_EQ((J * 3 + I) * 8, G.elementOffset(Idx)) << I << "," << J;
    }
  // A column is contiguous: (0,j)..(2,j) fill 24 consecutive bytes.
  size_t A[2] = {0, 2}, B[2] = {2, 2};
  EXPECT_EQ(16u, G.elementOffset(B) - G.elementOffset(A));
}

TEST(LayoutOffsets, ThreeDimensionalPermutation) {
  // The file stores dimension 2 outermost, then 0, then 1.
  const int Perm[3] = {2, 0, 1};
  Geometry G = geo(4, {2, 3, 4}, Perm, 64, 2);
  EXPECT_EQ("2,0,1", G.layoutString());
  size_t Idx[3] = {1, 2, 3};
  EXPECT_EQ(((3 * 2 + 1) * 3 + 2) * 4u, G.elementOffset(Idx));
}

TEST(LayoutOffsets, EveryLayoutIsABijectionOntoTheFile) {
  const std::vector<std::vector<int>> Perms = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (const auto &P : Perms) {
    Geometry G = geo(2, {3, 4, 5}, P.data(), 64, 3);
    std::set<size_t> Seen;
    for (size_t I = 0; I < 3; ++I)
      for (size_t J = 0; J < 4; ++J)
        for (size_t K = 0; K < 5; ++K) {
          size_t Idx[3] = {I, J, K};
          size_t Off = G.elementOffset(Idx);
          EXPECT_EQ(0u, Off % 2);
          EXPECT_LT(Off, G.TotalBytes);
          Seen.insert(Off);
        }
    EXPECT_EQ(60u, Seen.size()) << G.layoutString();
  }
}

TEST(LayoutErrors, BadShapesAreRejectedWithAReason) {
  Geometry G;
  size_t D2[2] = {4, 4};
  EXPECT_NE(std::string::npos, Geometry::make(0, 2, D2, nullptr, 64, 1, G).message().find("element size"));
  EXPECT_NE(std::string::npos, Geometry::make(8, 0, D2, nullptr, 64, 1, G).message().find("0 dimensions"));
  size_t D9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  EXPECT_NE(std::string::npos, Geometry::make(8, 9, D9, nullptr, 64, 1, G).message().find("9 dimensions"));
  EXPECT_FALSE(Geometry::make(8, 2, nullptr, nullptr, 64, 1, G).ok());
  size_t Zero[2] = {4, 0};
  EXPECT_NE(std::string::npos, Geometry::make(8, 2, Zero, nullptr, 64, 1, G).message().find("dimension 1 has extent 0"));
  size_t Huge[2] = {size_t(1) << 40, size_t(1) << 30};
  EXPECT_NE(std::string::npos, Geometry::make(8, 2, Huge, nullptr, 64, 1, G).message().find("overflow"));
  const int Dup[2] = {0, 0}, Out[2] = {0, 2}, Neg[2] = {-1, 0};
  for (const int *L : {Dup, Out, Neg})
    EXPECT_NE(std::string::npos, Geometry::make(8, 2, D2, L, 64, 1, G).message().find("permutation"));
}
