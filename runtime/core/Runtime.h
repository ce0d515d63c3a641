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
  DiskModel &model() { return *Model; }
  RetryPolicy retryPolicy() const { return Retry; }

  /// Opens an array; with \p G, collectively on the ranks of \p G, which
  /// then share it (runtime/core/SharedArrays.cpp).
  Status open(const char *Name, size_t ElemSize, int NDims, const size_t *Dims,
              const int *Layout, int Flags, iopoly_array *&Out,
              ArrayOrigin Origin = ArrayOrigin::Api, std::shared_ptr<Group> G = nullptr);
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

  // Arrays shared by MPI ranks (SharedArrays.cpp).
  /// Sync point of shared array \p A, collective over its ranks: every
  /// rank's changed bytes go to disk, then the copies another rank may
  /// have changed are dropped (attached ones are read again).
  Status syncShared(iopoly_array *A);
  /// Sync points of the shared arrays whose ranks all belong to \p Comm
  /// (an MPI_Comm*; every shared array when null), in open order.
  Status syncCovered(const void *Comm);
  /// Evictions of shared arrays' stripes write through (inside a
  /// distributed loop) or stay private to this rank (StripeBuffer.h).
  void setSharedWriteThrough(bool On) { Buffer->setSharedWriteThrough(On); }
  /// A disk-resident global of a program linked with libiopoly_mpi, before
  /// MPI_Init: addresses now, files at MPI_Init (openPendingShared).
  Status createPending(const char *Name, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout,
                       const void *Init,
                       iopoly_array *&Out);
  /// Opens every pending global on \p G, collectively (inside MPI_Init).
  Status openPendingShared(const std::shared_ptr<Group> &G);
  /// A pending global used before MPI_Init: opened for this process alone.
  Status openPendingAlone(iopoly_array *A);
  /// The open arrays in the order they were opened.
  std::vector<iopoly_array *> openArrays();
  /// Sends every later stripe transfer through \p R (libiopoly_mpi's
  /// storage-cache hierarchy).
  void installRouter(StripeRouter *R) {
    IO->setRouter(R);
    if (R)
      StatsRouter = R; // its counters stay in the statistics after MPI_Finalize
  }
  bool routed() const { return IO->router() != nullptr; }

private:
  Runtime() = default;
  Status init();
  Status openSharedFiles(iopoly_array &A, int Flags, Group &G, ArrayOrigin Origin = ArrayOrigin::Api);
  /// Counters and trace name of a new array; adds it to the open set
  /// (registry lock held by the caller). Returns the handle.
  iopoly_array *registerArray(std::unique_ptr<iopoly_array> A);
  /// Writes the non-zero stripes of a global's C initializer straight to
  /// its files (on rank 0 of its group only, when shared).
  Status writeInitializer(iopoly_array &A, const void *Init);
  std::mutex PendingMu; ///< serializes the opening of pending globals
  StripeRouter *StatsRouter = nullptr;

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
