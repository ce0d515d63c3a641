//===- ByteSizeTest.cpp - Sizes read by the runtime's one grammar ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The profile component's parseBytes (--cb, bw= of the cluster model)
// accepts and refuses exactly what common/Sizes.h does, with the same
// values and reasons; only "0" differs, and only when zero is allowed.
//
//===----------------------------------------------------------------------===//
#include "Sizes.h"
#include "common/Error.h"

#include <gtest/gtest.h>

using namespace iopoly::prof;

TEST(ByteSize, TheSameGrammarAsTheRuntime) {
  for (const char *T : {"4096", "64K", "64k", "64KB", "64KiB", "1M", "1MiB", "3G", "2T", "512B", " 64K ", "64Ki",
                        "4096i", "", "K", "-1", "1.5M", "64X", "0", "0K", "99999999999999999999", "16777216T"}) {
    uint64_t Want = 0, Got = 0;
    std::string Why;
    bool Ok = iopoly::parseByteSize(T, Want, &Why);
    Error E = parseBytes(T, Got);
    EXPECT_EQ(Ok, E.ok()) << "'" << T << "': " << E.message();
    if (Ok)
      EXPECT_EQ(Want, Got) << "'" << T << "'";
    else
      EXPECT_EQ(Why, E.message()) << "'" << T << "'";
  }
}

TEST(ByteSize, ZeroOnlyWhereAllowed) {
  uint64_t V = 7;
  EXPECT_EQ(parseBytes("0", V).message(), "size '0' must be positive");
  ASSERT_TRUE(parseBytes("0", V, /*AllowZero=*/true).ok());
  EXPECT_EQ(V, 0u);
  EXPECT_TRUE(parseBytes(" 00 ", V, true).ok());
  EXPECT_TRUE(parseBytes("64K", V, true).ok());
  EXPECT_EQ(V, 65536u);
  EXPECT_FALSE(parseBytes("", V, true).ok());
  EXPECT_FALSE(parseBytes("0x", V, true).ok());
}
