//===- StripeRouter.h - Stripe transfers through a cache hierarchy -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Under a storage-cache hierarchy (IOPOLY_TOPOLOGY, runtime/mpi/) the
// stripe buffer is the client cache (L1) and its misses and write-backs go
// to the client's I/O-node server instead of the files: StripeIO hands
// every transfer to the router that libiopoly_mpi installs at MPI_Init.
// MPI-free, like the rest of the core.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_STRIPEROUTER_H
#define IOPOLY_RUNTIME_STRIPEROUTER_H

#include "core/Error.h"

#include <cstdint>
#include <string>

struct iopoly_array;

namespace iopoly {

class Group;

/// What the hierarchy says about one transfer (for the trace and stats).
struct RouteInfo {
  uint8_t Level = 0;  ///< 2: I/O-node cache hit, 3: storage-node cache hit, 4: disk
  uint32_t L2Seq = 0; ///< arrival number at the I/O node
  uint32_t L3Seq = 0; ///< arrival number at the storage node (0: not reached)
  double Latency = 0; ///< modeled seconds
};

class StripeRouter {
public:
  virtual ~StripeRouter() = default;
  /// Moves \p Bytes bytes at byte \p InStripe of stripe \p Stripe of \p A
  /// (file A.Paths[disk], at \p FileOff) from or to \p Data.
  virtual Status transfer(const iopoly_array &A, size_t Stripe, uint64_t FileOff, uint32_t InStripe, char *Data,
                          size_t Bytes, bool Write, RouteInfo &Info) = 0;
  /// Whether I/O threads may call it (MPI_THREAD_MULTIPLE).
  virtual bool allowsThreads() const = 0;
  /// Part of a sync point of shared array \p A, after every rank of \p G
  /// has written back: the server caches drop the copies of A that
  /// changed behind them. Collective over \p G.
  virtual Status epoch(const iopoly_array &A, Group &G) = 0;
  /// Per-level counters of this rank, as a JSON object.
  virtual std::string statsJSON() const = 0;
};

/// 64-bit FNV-1a of \p S: the identity of a disk file in the hierarchy's
/// caches and in the trace.
inline uint64_t fileKey(const std::string &S) {
  uint64_t H = 1469598103934665603ULL;
  for (unsigned char C : S)
    H = (H ^ C) * 1099511628211ULL;
  return H;
}

} // namespace iopoly

#endif
