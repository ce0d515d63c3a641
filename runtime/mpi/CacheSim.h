//===- CacheSim.h - Trace-driven simulator of the cache hierarchy -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Replays the ranks' stripe traces (IOPOLY_TRACE: the transfers each rank's
// buffer asked of the storage below it, and its sync points) through the
// hierarchy of a topology, with the caches of CacheModel.h, the network of
// NetModel and one DiskModel queue per disk, exactly as the servers
// (CacheServer.cpp) handle them. L1 is each rank's own buffer: its hits and
// misses are read from the trace's attach events.
//
// Two orders of the requests at the shared caches:
//  - clock: a deterministic discrete-event run: the rank with the earliest
//    modeled clock issues its next transfer (ties: lowest rank); a sync
//    point is a barrier of the ranks whose traces sync that array. This is
//    how the benchmarks simulate 64/32/16 nodes on a small machine.
//  - recorded: the order the real servers saw, from the arrival numbers in
//    the trace (a trace of a run with IOPOLY_TOPOLOGY). The simulated level
//    of every transfer is then compared with the level that served it in
//    the real run: the counts must agree exactly.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_CACHESIM_H
#define IOPOLY_RUNTIME_MPI_CACHESIM_H

#include "mpi/CacheModel.h"
#include "mpi/Topology.h"

#include "core/Trace.h"

#include <string>
#include <vector>

namespace iopoly {

struct SimOptions {
  bool Recorded = false; ///< order of the real run instead of the clock order
  size_t Stripe = 0;     ///< 0: the size of the traces' reads
};

struct SimClient {
  int Rank = 0;
  uint64_t L1Accesses = 0, L1Hits = 0;
  LevelCounters L2, L3, Disk; ///< what this rank's requests met
  double IoSeconds = 0;       ///< sum of its transfers' modeled latencies
  double Clock = 0;           ///< modeled end time, sync waits included
};

struct SimResult {
  std::vector<SimClient> Clients;
  LevelCounters L2, L3, Disk;
  uint64_t L1Accesses = 0, L1Hits = 0;
  /// Recorded order: transfers whose simulated level differs from the
  /// level that served them in the real run.
  uint64_t LevelMismatches = 0;
  std::string FirstMismatch;
  double IoMeanSeconds = 0, IoMaxSeconds = 0, Makespan = 0;
  /// The floor: misses no cache of that size could avoid (distinct stripes
  /// read through each cache node, summed over the level; for L1, distinct
  /// stripes each rank attached).
  uint64_t L1Compulsory = 0, L2Compulsory = 0, L3Compulsory = 0, DiskCompulsory = 0;
  std::string toJSON(bool PerClient) const;
};

/// Simulates \p Traces (trace k is rank k) through \p T. Returns "" or an
/// error naming the trace.
std::string simulate(const Topology &T, const std::vector<TraceContents> &Traces, const SimOptions &O,
                     SimResult &Out);

} // namespace iopoly

#endif
