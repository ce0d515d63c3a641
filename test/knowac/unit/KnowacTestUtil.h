//===- KnowacTestUtil.h - Helpers of the KNOWAC unit tests -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scratch directory removed at the end, and builders of labels and run
// paths so that tests read like the paper's figures.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_KNOWAC_UTIL_H
#define IOPOLY_TEST_KNOWAC_UTIL_H

#include "Graph.h"

#include <cstdio>
#include <cstdlib>
#include <ftw.h>
#include <string>
#include <vector>

namespace iopoly {
namespace knowac {
namespace test {

class Scratch {
public:
  Scratch() {
    char T[] = "./knowac-test-XXXXXX";
    if (::mkdtemp(T))
      Dir = T;
  }
  ~Scratch() {
    if (!Dir.empty())
      ::nftw(Dir.c_str(), [](const char *P, const struct stat *, int, struct FTW *) { return std::remove(P); }, 16,
             FTW_DEPTH | FTW_PHYS);
  }
  std::string file(const std::string &Name) const { return Dir + "/" + Name; }
  std::string Dir;
};

/// A read of variable \p Var (whole) in file slot 0.
inline Label readOf(const std::string &Var, const std::string &Region = "*") {
  Label L;
  L.O = Op::Read;
  L.Slot = 0;
  L.Mode = 'r';
  L.Var = Var;
  L.Region = Region;
  return L;
}

inline Label writeOf(const std::string &Var, const std::string &Region = "*") {
  Label L = readOf(Var, Region);
  L.O = Op::Write;
  L.Slot = 1;
  L.Mode = 'c';
  return L;
}

/// The path of a run of rank 0 of 1 through \p Vars (reads), each after
/// \p Gap seconds of computing and lasting \p Io seconds.
inline std::vector<Step> runOf(const std::vector<std::string> &Vars, double Gap = 0.01, double Io = 0.02,
                               int Rank = 0, int NProcs = 1) {
  std::vector<Step> P;
  Step S0;
  S0.L = Label::start(Rank, NProcs);
  P.push_back(S0);
  for (const std::string &V : Vars) {
    Step S;
    S.L = readOf(V);
    S.File = "in.nc";
    S.Bytes = 4096;
    S.IoSeconds = Io;
    S.IoMeasured = true;
    S.GapSeconds = Gap;
    P.push_back(S);
  }
  return P;
}

/// The index of the vertex reading \p Var (the first, if several).
inline int vertexOf(const Graph &G, const std::string &Var) {
  const auto &Ids = G.withKey(readOf(Var).key());
  return Ids.empty() ? -1 : int(Ids.front());
}

} // namespace test
} // namespace knowac
} // namespace iopoly

#endif
