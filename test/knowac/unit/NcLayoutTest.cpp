//===- NcLayoutTest.cpp - Byte runs and exact copies -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runs of a box are where netCDF puts its elements (fixed-size and
// record variables), and a copy out of cached bytes gives what PnetCDF
// gives: native byte order, row-major or by imap, float widened to double
// bit for bit (NaN, infinities, -0, subnormals).
//
//===----------------------------------------------------------------------===//
#include "NcLayout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace iopoly::knowac;

namespace {
Box box(std::vector<int64_t> S, std::vector<int64_t> C, std::vector<int64_t> St = {}) {
  if (St.empty())
    St.assign(S.size(), 1);
  return Box{S, C, St};
}

/// A file image: variable elements stored big-endian at their offsets.
struct Image {
  std::vector<unsigned char> Bytes = std::vector<unsigned char>(8192, 0);
  void putDouble(int64_t Off, double V) {
    uint64_t U;
    std::memcpy(&U, &V, 8);
    for (int I = 0; I < 8; ++I)
      Bytes[size_t(Off + I)] = (unsigned char)(U >> (56 - 8 * I));
  }
  void putFloat(int64_t Off, float V) {
    uint32_t U;
    std::memcpy(&U, &V, 4);
    for (int I = 0; I < 4; ++I)
      Bytes[size_t(Off + I)] = (unsigned char)(U >> (24 - 8 * I));
  }
  /// The packed bytes of \p B, gathered through byteRuns.
  std::vector<unsigned char> gather(const VarLayout &V, int64_t RecSize, const Box &B) const {
    std::vector<unsigned char> P(size_t(B.elements()) * V.ElemSize);
    for (const ByteRun &R : byteRuns(V, RecSize, B))
      std::memcpy(P.data() + R.BufOffset, Bytes.data() + R.FileOffset, size_t(R.Bytes));
    return P;
  }
};

VarLayout fixedVar() { // double a[4][6] at offset 100
  VarLayout V;
  V.Name = "a";
  V.XType = NcDouble;
  V.ElemSize = 8;
  V.Dims = {4, 6};
  V.Begin = 100;
  return V;
}
} // namespace

TEST(NcLayout, RunsOfAFixedVariable) {
  VarLayout V = fixedVar();
  auto R = byteRuns(V, 0, box({0, 0}, {4, 6}));
  ASSERT_EQ(R.size(), 1u); // whole rows merge into one run
  EXPECT_EQ(R[0].FileOffset, 100);
  EXPECT_EQ(R[0].Bytes, 4 * 6 * 8);
  R = byteRuns(V, 0, box({1, 2}, {2, 3}));
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0].FileOffset, 100 + (1 * 6 + 2) * 8);
  EXPECT_EQ(R[1].FileOffset, 100 + (2 * 6 + 2) * 8);
  EXPECT_EQ(R[1].BufOffset, 3 * 8);
  R = byteRuns(V, 0, box({0, 1}, {1, 3}, {1, 2}));
  EXPECT_EQ(R.size(), 3u); // strided: one element each
}

TEST(NcLayout, RunsOfARecordVariable) {
  VarLayout V; // float r[rec][3][2], records 200 bytes apart, from 1000
  V.XType = NcFloat;
  V.ElemSize = 4;
  V.Dims = {5, 3, 2};
  V.Record = true;
  V.Begin = 1000;
  auto R = byteRuns(V, 200, box({2, 0, 0}, {2, 3, 2}));
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0].FileOffset, 1000 + 2 * 200);
  EXPECT_EQ(R[0].Bytes, 24);
  EXPECT_EQ(R[1].FileOffset, 1000 + 3 * 200);
  EXPECT_EQ(R[1].BufOffset, 24);
}

TEST(NcLayout, RunsOfAOneDimensionalRecordVariable) {
  // time(time): one element per record, records 200 bytes apart.
  VarLayout V;
  V.XType = NcDouble;
  V.ElemSize = 8;
  V.Dims = {4};
  V.Record = true;
  V.Begin = 1000;
  auto R = byteRuns(V, 200, box({0}, {4}));
  ASSERT_EQ(R.size(), 4u);
  for (int I = 0; I < 4; ++I) {
    EXPECT_EQ(R[size_t(I)].FileOffset, 1000 + I * 200);
    EXPECT_EQ(R[size_t(I)].Bytes, 8);
    EXPECT_EQ(R[size_t(I)].BufOffset, I * 8);
  }
  // A record variable that is the only one: records are adjacent.
  R = byteRuns(V, 8, box({1}, {3}));
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0].FileOffset, 1008);
  EXPECT_EQ(R[0].Bytes, 24);
}

TEST(NcLayout, CopyOutIsWhatPnetcdfReturns) {
  VarLayout V = fixedVar();
  Image Img;
  for (int I = 0; I < 4; ++I)
    for (int J = 0; J < 6; ++J)
      Img.putDouble(V.Begin + (I * 6 + J) * 8, I * 100 + J + 0.5);
  Box Have = box({0, 0}, {4, 6});
  std::vector<unsigned char> P = Img.gather(V, 0, Have);
  // A sub-box, row-major.
  double Out[6];
  copyOut(P.data(), Have, 8, box({1, 2}, {2, 3}), nullptr, Conv::Same, Out);
  const double Want[6] = {102.5, 103.5, 104.5, 202.5, 203.5, 204.5};
  EXPECT_EQ(std::memcmp(Out, Want, sizeof Out), 0);
  // Strided, from a cached strided box.
  Box HaveS = box({0, 0}, {4, 3}, {1, 2});
  std::vector<unsigned char> PS = Img.gather(V, 0, HaveS);
  double OutS[2];
  copyOut(PS.data(), HaveS, 8, box({3, 0}, {1, 2}, {1, 4}), nullptr, Conv::Same, OutS);
  EXPECT_EQ(OutS[0], 300.5);
  EXPECT_EQ(OutS[1], 304.5);
  // varm: the transpose through imap {1, 2}.
  double T[6];
  copyOut(P.data(), Have, 8, box({0, 0}, {2, 3}), std::vector<int64_t>{1, 2}.data(), Conv::Same, T);
  const double WantT[6] = {0.5, 100.5, 1.5, 101.5, 2.5, 102.5};
  EXPECT_EQ(std::memcmp(T, WantT, sizeof T), 0);
}

TEST(NcLayout, FloatToDoubleIsExact) {
  VarLayout V;
  V.XType = NcFloat;
  V.ElemSize = 4;
  V.Dims = {6};
  V.Begin = 0;
  const float In[6] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), -0.0f,
                       std::numeric_limits<float>::denorm_min(), 3.14159f, -1e30f};
  Image Img;
  for (int I = 0; I < 6; ++I)
    Img.putFloat(I * 4, In[I]);
  Box All = box({0}, {6});
  std::vector<unsigned char> P = Img.gather(V, 0, All);
  double Out[6];
  copyOut(P.data(), All, 4, All, nullptr, Conv::FloatToDouble, Out);
  for (int I = 0; I < 6; ++I) {
    double Want = double(In[I]);
    EXPECT_EQ(std::memcmp(&Out[I], &Want, 8), 0) << I;
  }
  EXPECT_EQ(convFor(NcFloat, NcDouble), Conv::FloatToDouble);
  EXPECT_EQ(convFor(NcDouble, NcFloat), Conv::None); // narrowing may be out of range
  EXPECT_EQ(convFor(NcInt, NcDouble), Conv::None);
  EXPECT_EQ(convFor(NcShort, NcShort), Conv::Same);
}
