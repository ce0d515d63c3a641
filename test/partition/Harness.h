//===- Harness.h - Helpers of the partitioning unit tests --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_PARTITION_HARNESS_H
#define IOPOLY_TEST_PARTITION_HARNESS_H

#include "partition/Access.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace iopoly::prof::test {

/// One access: rank, 'r' or 'w', offset, length, time (ns).
inline Access acc(uint32_t Rank, char Op, uint64_t Off, uint64_t Len, uint64_t T = 0) {
  Access A;
  A.Rank = Rank;
  A.Op = Op == 'w' ? IoOp::Write : IoOp::Read;
  A.Offset = Off;
  A.Length = Len;
  A.Time = T;
  return A;
}

/// A run's accesses with Seq numbered per rank in the given order.
inline RunAccesses run(uint32_t NRanks, std::vector<Access> L, uint64_t Id = 1) {
  RunAccesses R;
  R.RunId = Id;
  R.NRanks = NRanks;
  std::vector<uint32_t> Seq(NRanks, 0);
  for (Access &A : L)
    A.Seq = Seq[A.Rank]++;
  std::sort(L.begin(), L.end(), [](const Access &A, const Access &B) {
    return A.Rank != B.Rank ? A.Rank < B.Rank : A.Seq < B.Seq;
  });
  R.List = std::move(L);
  return R;
}

/// A scratch directory removed at the end of the test.
struct TempDir {
  std::string Path;
  TempDir() {
    char T[] = "/tmp/iopoly-partition-test.XXXXXX";
    Path = mkdtemp(T);
  }
  ~TempDir() { std::system(("rm -rf '" + Path + "'").c_str()); }
};

} // namespace iopoly::prof::test

#endif
