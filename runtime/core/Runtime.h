//===- Runtime.h - The process-wide iopoly runtime --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Owns the configuration, the backend, the disk model, the counters, the
// trace, the I/O threads and the stripe buffer, and the registry of open
// arrays. Created on first use; at normal process exit it writes back every
// dirty stripe, then writes IOPOLY_STATS and closes IOPOLY_TRACE.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_RUNTIME_H
#define IOPOLY_RUNTIME_RUNTIME_H

#include "core/Array.h"
#include "io/Backend.h"
#include "core/Config.h"
#include "io/DiskModel.h"
#include "io/IOWorkers.h"
#include "io/RetryIO.h"
#include "core/Stats.h"
#include "core/StripeBuffer.h"
#include "io/StripeIO.h"
#include "core/Trace.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <set>

namespace iopoly {

class Runtime {
public:
  /// The runtime, created on first call; fails on a bad configuration.
  static Status get(Runtime *&Out);
  /// The runtime if it exists already, else null (never creates it).
  static Runtime *existing();

  const Config &config() const { return C; }
  Backend &backend() { return *B; }
  StripeBuffer &buffer() { return *Buffer; }
  /// The counters (read them under the buffer lock).
  Stats &stats() { return *Counters; }
  RetryPolicy retryPolicy() const { return Retry; }

  Status open(const char *Name, size_t ElemSize, int NDims, const size_t *Dims,
              const int *Layout, int Flags, iopoly_array *&Out,
              ArrayOrigin Origin = ArrayOrigin::Api);
  Status close(iopoly_array *A);
  /// Writes back and syncs \p A (every array when null).
  Status flush(iopoly_array *A);
  /// Whether \p A is a live handle of this runtime.
  bool isOpen(const iopoly_array *A);

  std::string statsJSON();
  Status writeStats(const std::string &Path);
  void resetStats();
  /// Copies the main counters (for iopoly_get_counters).
  void counters(unsigned long long *Fetches, unsigned long long *Distinct,
                unsigned long long *Hits, unsigned long long *Evictions,
                unsigned long long *Writebacks, unsigned long long *BytesRead,
                unsigned long long *BytesWritten, double *IoSeconds,
                double *ModeledSeconds);

  /// Writes back everything and stops the I/O threads; runs once, at exit
  /// or before MPI_Finalize (the MPI-IO backend calls it). An array that
  /// cannot be written back gets its dirty blocks saved to a rescue file,
  /// and the process then exits with IOPOLY_EXIT_UNSAVED (see atexit).
  void shutdown();
  /// Whether shutdown() failed to write back some array.
  bool unsavedAtExit() const { return UnsavedAtExit; }

private:
  Runtime() = default;
  Status init();

  Config C;
  RetryPolicy Retry;
  std::unique_ptr<Backend> B;
  std::unique_ptr<DiskModel> Model;
  std::unique_ptr<Stats> Counters;
  std::unique_ptr<TraceWriter> Trace;
  std::unique_ptr<IOWorkers> Workers;
  std::unique_ptr<StripeIO> IO;
  std::unique_ptr<StripeBuffer> Buffer;
  std::chrono::steady_clock::time_point Started;

  std::mutex RegistryMu; ///< guards Open, NextId, and serializes open/close
  std::set<const iopoly_array *> Open;
  unsigned NextId = 1;
  std::once_flag ShutdownOnce;
  bool UnsavedAtExit = false;
  /// Saves the dirty blocks of \p A that could not be written back.
  void rescue(iopoly_array *A, const Status &Why);
};

} // namespace iopoly

#endif
