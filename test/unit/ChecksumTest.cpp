//===- ChecksumTest.cpp - CRC32C values and the zero-stripe rule ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Checksum.h"

#include <gtest/gtest.h>

#include <vector>

using namespace iopoly;

TEST(Checksum, KnownCrc32cValues) {
  EXPECT_EQ(0xe3069283u, crc32c("123456789", 9));
  EXPECT_EQ(0u, crc32c("", 0));
  std::vector<unsigned char> Z(32, 0);
  EXPECT_EQ(0x8a9136aau, crc32c(Z.data(), Z.size())); // RFC 3720, 32 zero bytes
}

TEST(Checksum, ChunkedEqualsWholeAndZeroStripesSumToZero) {
  std::vector<unsigned char> D(10007);
  for (size_t I = 0; I < D.size(); ++I)
    D[I] = static_cast<unsigned char>(I * 31 + 7);
  EXPECT_EQ(crc32c(D.data(), D.size()), crc32c(D.data() + 5000, D.size() - 5000, crc32c(D.data(), 5000)));
  std::vector<unsigned char> Zeros(4096, 0);
  EXPECT_EQ(0u, stripeSum(Zeros.data(), Zeros.size(), zeroCrc(4096)));
  D[17] ^= 1;
  EXPECT_NE(0u, stripeSum(D.data(), 4096, zeroCrc(4096)));
}
