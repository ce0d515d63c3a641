//===- Array.h - An open disk-resident array --------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// struct iopoly_array: the geometry, one backend file per disk, and the
// stripe -> frame table the stripe buffer uses to find resident stripes.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_ARRAY_H
#define IOPOLY_RUNTIME_ARRAY_H

#include "io/Backend.h"
#include "core/Group.h"
#include "core/Layout.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace iopoly {

struct Frame;

/// Stripe -> resident frame, two levels so that a 1 TiB array costs memory
/// only for the pages of stripes that were ever resident. Guarded by the
/// stripe buffer's lock. A lookup is two dependent loads.
class FrameTable {
public:
  explicit FrameTable(size_t NumStripes)
      : Pages((NumStripes + PageSize - 1) / PageSize) {}
  Frame *lookup(size_t Stripe) const {
    const auto &P = Pages[Stripe / PageSize];
    return P ? P[Stripe % PageSize] : nullptr;
  }
  void set(size_t Stripe, Frame *F) {
    auto &P = Pages[Stripe / PageSize];
    if (!P) {
      P.reset(new Frame *[PageSize]);
      std::fill(P.get(), P.get() + PageSize, nullptr);
    }
    P[Stripe % PageSize] = F;
  }

private:
  static constexpr size_t PageSize = 1024;
  std::vector<std::unique_ptr<Frame *[]>> Pages;
};

} // namespace iopoly

struct iopoly_array {
  static constexpr unsigned LiveMagic = 0x10b01a77u;
  static constexpr unsigned DeadMagic = 0xdeadbeefu;

  unsigned Magic = LiveMagic;
  unsigned Id = 0; ///< process-unique, used in traces
  std::string Name;
  iopoly::Geometry Geo;
  bool Writable = false;
  std::vector<std::unique_ptr<iopoly::BackendFile>> Files; ///< one per disk
  std::vector<std::string> Paths;                          ///< one per disk
  int LockFd = -1; ///< flock'ed <disk0>/<name>.lock while open
  iopoly::FrameTable Table;
  std::vector<unsigned long long> *Fetched = nullptr; ///< distinct-stripe bits
  void *AllocBase = nullptr; ///< iopoly_alloc address range, if any
  /// Stripes known to be all zero on disk (the array was created or
  /// truncated here and the stripe never written since): fetched by zero
  /// filling the frame, with no I/O. Empty: unknown. Buffer lock.
  std::vector<unsigned long long> ZeroOnDisk;
  /// The ranks sharing this array (runtime/core/SharedArrays.cpp); null
  /// when it belongs to this process alone.
  std::shared_ptr<iopoly::Group> Grp;
  /// A disk-resident global of an MPI program waiting for MPI_Init to be
  /// opened collectively: it has addresses but no files yet.
  std::atomic<bool> Pending{false};
  const void *PendingInit = nullptr; ///< its C initializer (or null)
  /// Shared arrays: bytes written to each disk file since the last sync
  /// point (StripeIO counts them), so that a sync point of an array nobody
  /// changed costs one reduction.
  std::unique_ptr<std::atomic<unsigned long long>[]> WrittenSinceSync;

  explicit iopoly_array(const iopoly::Geometry &G)
      : Geo(G), Table(G.numStripes()) {}
  bool live() const { return Magic == LiveMagic; }
  bool shared() const { return Grp != nullptr; }
  bool zeroOnDisk(size_t Stripe) const {
    return Stripe / 64 < ZeroOnDisk.size() && (ZeroOnDisk[Stripe / 64] >> (Stripe % 64) & 1);
  }
  void writtenToDisk(size_t Stripe) {
    if (Stripe / 64 < ZeroOnDisk.size())
      ZeroOnDisk[Stripe / 64] &= ~(1ULL << (Stripe % 64));
  }
  void allZeroOnDisk() { ZeroOnDisk.assign((Geo.numStripes() + 63) / 64, ~0ULL); }
  /// Identifies disk file \p Disk of this array for the disk model.
  unsigned long long fileId(size_t Disk) const {
    return (static_cast<unsigned long long>(Id) << 16) ^ Disk;
  }
};

namespace iopoly {

class Runtime;

/// Opens or creates the disk files of \p A (whose Name and Geo are set)
/// according to iopoly_open's \p Flags, holding the array's lock file.
Status openArrayFiles(Runtime &RT, iopoly_array &A, int Flags);
/// openArrayFiles once the lock is decided (internal).
Status openArrayFilesLocked(Runtime &RT, iopoly_array &A, int Flags);

/// Closes every file of \p A; the first error is returned.
Status closeArrayFiles(Runtime &RT, iopoly_array &A);

} // namespace iopoly

#endif
