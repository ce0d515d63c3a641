//===- iopoly-cachesim.cpp - Replays stripe traces through a hierarchy -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//   iopoly-cachesim [--order=clock|recorded] [--stripe=BYTES] [--per-rank]
//                   [--check] TOPOLOGY.json TRACE...
//
// One trace per rank, in rank order (IOPOLY_TRACE=run.%r.trace). Prints the
// per-level counts, miss rates and modeled I/O latency as one JSON object
// (runtime/mpi/CacheSim.h says what the orders mean). --check: with
// --order=recorded, exit 1 unless every transfer is served at the level
// that served it in the real run.
//
//===----------------------------------------------------------------------===//
#include "mpi/CacheSim.h"
#include "Sizes.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace iopoly;

static int usage() {
  std::fprintf(stderr, "usage: iopoly-cachesim [--order=clock|recorded] [--stripe=BYTES] [--per-rank] [--check] "
                       "TOPOLOGY.json TRACE...\n"
                       "  one IOPOLY_TRACE file per rank, in rank order\n");
  return 2;
}

int main(int argc, char **argv) {
  SimOptions O;
  bool PerRank = false, Check = false;
  std::vector<std::string> Args;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    if (A == "--order=clock")
      O.Recorded = false;
    else if (A == "--order=recorded")
      O.Recorded = true;
    else if (A.rfind("--stripe=", 0) == 0) {
      uint64_t S = 0;
      std::string Why;
      if (!parseByteSize(A.substr(9), S, &Why)) {
        std::fprintf(stderr, "iopoly-cachesim: --stripe: %s\n", Why.c_str());
        return 2;
      }
      O.Stripe = S;
    } else if (A == "--per-rank")
      PerRank = true;
    else if (A == "--check")
      Check = true;
    else if (A == "-h" || A == "--help")
      return usage(), 0;
    else if (A.rfind("--", 0) == 0) {
      std::fprintf(stderr, "iopoly-cachesim: unknown option '%s'\n", A.c_str());
      return usage();
    } else
      Args.push_back(A);
  }
  if (Args.size() < 2)
    return usage();
  Topology T;
  if (std::string E = loadTopology(Args[0], T); !E.empty()) {
    std::fprintf(stderr, "iopoly-cachesim: %s\n", E.c_str());
    return 1;
  }
  std::vector<TraceContents> Traces(Args.size() - 1);
  for (size_t K = 1; K < Args.size(); ++K)
    if (Status S = readTrace(Args[K], Traces[K - 1])) {
      std::fprintf(stderr, "iopoly-cachesim: %s\n", S.message().c_str());
      return 1;
    }
  SimResult R;
  if (std::string E = simulate(T, Traces, O, R); !E.empty()) {
    std::fprintf(stderr, "iopoly-cachesim: %s\n", E.c_str());
    return 1;
  }
  std::printf("%s\n", R.toJSON(PerRank).c_str());
  if (Check && O.Recorded && R.LevelMismatches) {
    std::fprintf(stderr, "iopoly-cachesim: %llu transfers disagree with the real run; first: %s\n",
                 static_cast<unsigned long long>(R.LevelMismatches), R.FirstMismatch.c_str());
    return 1;
  }
  return 0;
}
