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
#include "core/Layout.h"
#include "core/SparseTable.h"

#include <memory>
#include <string>
#include <vector>

namespace iopoly {

struct Frame;

/// Stripe -> resident frame. Sparse (core/SparseTable.h): a 1 PiB array
/// costs memory only for the paths of stripes that were ever resident.
/// Guarded by the stripe buffer's lock. A lookup is one load per level.
class FrameTable {
public:
  explicit FrameTable(size_t NumStripes) : Table(NumStripes, nullptr) {}
  Frame *lookup(size_t Stripe) const { return Table.get(Stripe); }
  void set(size_t Stripe, Frame *F) { Table.set(Stripe, F); }

private:
  SparseTable<Frame *> Table;
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
  iopoly::SparseBits *Fetched = nullptr; ///< distinct-stripe bits (in the Stats)
  void *AllocBase = nullptr; ///< iopoly_alloc address range, if any
  /// Stripes known to be all zero on disk (the array was created or
  /// truncated here and the stripe never written since): fetched by zero
  /// filling the frame, with no I/O. Only when ZeroKnown. Buffer lock.
  iopoly::SparseBits ZeroOnDisk;
  bool ZeroKnown = false;

  explicit iopoly_array(const iopoly::Geometry &G)
      : Geo(G), Table(G.numStripes()) {}
  bool live() const { return Magic == LiveMagic; }
  bool zeroOnDisk(size_t Stripe) const { return ZeroKnown && ZeroOnDisk.test(Stripe); }
  void writtenToDisk(size_t Stripe) {
    if (ZeroKnown)
      ZeroOnDisk.clearBit(Stripe);
  }
  void allZeroOnDisk() {
    ZeroOnDisk = iopoly::SparseBits(Geo.numStripes(), /*AllSet=*/true);
    ZeroKnown = true;
  }
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
