//===- Clock.h - Time stamps of the profile layers ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MPI_CLOCK_H
#define IOPOLY_PROFILE_MPI_CLOCK_H

#include <cstdint>
#include <ctime>

namespace iopoly::prof {

/// CLOCK_MONOTONIC in ns (one vDSO call, ~20 ns).
inline uint64_t monoNs() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return static_cast<uint64_t>(T.tv_sec) * 1000000000ull + static_cast<uint64_t>(T.tv_nsec);
}

inline uint64_t realNs() {
  timespec T;
  clock_gettime(CLOCK_REALTIME, &T);
  return static_cast<uint64_t>(T.tv_sec) * 1000000000ull + static_cast<uint64_t>(T.tv_nsec);
}

} // namespace iopoly::prof

#endif
