//===- profile_check.cpp - Compares a profile with expected records --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// profile_check LOG EXPECTED_PREFIX NRANKS
// The program accesses of each rank's section (in call order, the pieces of
// one call in the order logged) must be exactly the lines of
// EXPECTED_PREFIX.<rank>: "op offset length flags"; flags compared on the
// bits a program chooses (collective, nonblocking, pointers, split).
//
//===----------------------------------------------------------------------===//
#include "log/LogReader.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <tuple>

using namespace iopoly::prof;

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: profile_check LOG EXPECTED_PREFIX NRANKS\n");
    return 2;
  }
  std::vector<Section> S;
  std::vector<std::string> W;
  if (Error E = readLog(argv[1], S, W)) {
    std::fprintf(stderr, "profile_check: %s\n", E.message().c_str());
    return 1;
  }
  for (const std::string &X : W)
    std::fprintf(stderr, "profile_check: warning: %s\n", X.c_str());
  int N = std::atoi(argv[3]), Bad = 0;
  const uint16_t Mask = AfCollective | AfNonblocking | AfSharedPtr | AfOrdered | AfIndivPtr | AfSplit;
  if (static_cast<int>(S.size()) != N) {
    std::fprintf(stderr, "profile_check: %zu sections, expected %d\n", S.size(), N);
    return 1;
  }
  for (const Section &Sec : S) {
    std::vector<std::tuple<uint32_t, size_t, const AccessRecord *>> Got;
    for (size_t I = 0; I < Sec.Accesses.size(); ++I)
      if (!(Sec.Accesses[I].Flags & (AfInternal | AfPosix)))
        Got.emplace_back(Sec.Accesses[I].Call, I, &Sec.Accesses[I]);
    std::sort(Got.begin(), Got.end());
    std::ifstream In(std::string(argv[2]) + "." + std::to_string(Sec.Rank));
    int Op;
    long long Off, Len;
    int Fl;
    size_t K = 0;
    while (In >> Op >> Off >> Len >> Fl) {
      if (K >= Got.size()) {
        std::fprintf(stderr, "rank %u: missing record %zu: op %d offset %lld length %lld\n", Sec.Rank, K, Op, Off, Len);
        ++Bad;
        ++K;
        continue;
      }
      const AccessRecord &A = *std::get<2>(Got[K]);
      if (A.Op != Op || static_cast<long long>(A.Offset) != Off || static_cast<long long>(A.Length) != Len ||
          (A.Flags & Mask) != (Fl & Mask)) {
        std::fprintf(stderr,
                     "rank %u: record %zu is op %u offset %llu length %llu flags 0x%x; expected op %d offset %lld "
                     "length %lld flags 0x%x\n",
                     Sec.Rank, K, A.Op, static_cast<unsigned long long>(A.Offset),
                     static_cast<unsigned long long>(A.Length), A.Flags & Mask, Op, Off, Len, Fl & Mask);
        ++Bad;
      }
      ++K;
    }
    if (K < Got.size()) {
      std::fprintf(stderr, "rank %u: %zu unexpected extra records\n", Sec.Rank, Got.size() - K);
      ++Bad;
    }
  }
  if (Bad)
    return 1;
  std::printf("profile_check: %d ranks match\n", N);
  return 0;
}
