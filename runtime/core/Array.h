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
#include "core/FileHeader.h"
#include "core/Group.h"
#include "core/Layout.h"
#include "core/SparseTable.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace iopoly {

struct Frame;
struct ArrayCounters;

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
  std::vector<std::string> Dirs;                           ///< disk directories

  /// The headers as on disk (creation, state, commit), maintained by
  /// core/ArrayState.cpp for arrays opened from files (Journaled).
  iopoly::FileHeader Header;
  bool Journaled = false;
  std::mutex StateMu;              ///< Header, the counters below
  std::condition_variable StateCV; ///< InFlightWrites reached 0
  unsigned InFlightWrites = 0;     ///< stripe writes under way
  uint64_t WriteSeq = 0;           ///< stripe writes started so far

  /// Per-stripe checksums (IOPOLY_CHECKSUM=on at creation): one open
  /// <name>.sum per disk, CRC32C xor ZeroCrc per slot.
  bool Checksums = false;
  uint32_t ZeroCrc = 0;
  std::vector<int> SumFds;
  std::vector<std::string> SumPaths;
  int LockFd = -1; ///< flock'ed <disk0>/<name>.lock while open
  iopoly::FrameTable Table;
  iopoly::SparseBits *Fetched = nullptr; ///< distinct-stripe bits (in the Stats)
  void *AllocBase = nullptr; ///< iopoly_alloc address range, if any
  /// Bytes of the elements the program stores, where the headers record a
  /// shape over iopoly_alloc's byte view (compiled code's, or
  /// iopoly_alloc_elems'); 0: Geo's. A rank's changed bytes of a shared
  /// array are joined within elements (elementBytes).
  std::atomic<size_t> StoredElem{0};
  size_t elementBytes() const {
    size_t E = StoredElem.load(std::memory_order_relaxed);
    return E ? E : Geo.ElemSize;
  }
  iopoly::ArrayCounters *PerArray = nullptr; ///< its per_array statistics (buffer lock)
  /// Prefetched stripes of this array used, and evicted unused: read
  /// without the buffer lock by restructured code's hints (TileWalk.cpp).
  mutable std::atomic<uint64_t> HintsUsed{0}, HintsWasted{0};
  /// Non-resident stripes are registered with userfaultfd (memory/
  /// FaultService.h) rather than PROT_NONE. Buffer lock.
  bool FaultArmed = false;
  /// Stripes known to be all zero on disk (the array was created or
  /// truncated here and the stripe never written since): fetched by zero
  /// filling the frame, with no I/O. Only when ZeroKnown. Buffer lock.
  iopoly::SparseBits ZeroOnDisk;
  bool ZeroKnown = false;
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
struct RetryPolicy;

/// Who asks for an array: the C API; iopoly_alloc (a byte view, which
/// compiled code may give a shape and a layout, __iopoly_alloc_layout, so
/// it opens files that record one); or the constructor of a disk-resident
/// global (which starts from its initializer every run, so an array of it
/// left with other settings by an earlier run may be created again).
enum class ArrayOrigin { Api, Alloc, Global };

/// Opens or creates the disk files of \p A (whose Name and Geo are set)
/// according to iopoly_open's \p Flags, holding the array's lock file.
/// Creation is crash-safe: files are written as <name>.iop.creating, synced,
/// renamed, and the directories synced. An interrupted creation is refused
/// by RDONLY/RDWR and started over by CREATE; files of different creations
/// or committed states, and files left dirty by a crash, are refused
/// (CREATE|TRUNC starts such an array over, except mixed creations).
Status openArrayFiles(Runtime &RT, iopoly_array &A, int Flags, ArrayOrigin Origin = ArrayOrigin::Api);

/// Closes every file of \p A; the first error is returned.
Status closeArrayFiles(Runtime &RT, iopoly_array &A);

/// Before a stripe of \p A is written: marks its headers dirty (once per
/// commit epoch, synced before any data is written). No-op for arrays not
/// opened from files. Pair with endStripeWrite.
Status beginStripeWrite(iopoly_array &A);
void endStripeWrite(iopoly_array &A);
/// Records in \p A's file headers that its bytes hold the array \p G
/// (shape and layout) the compiled code stores there. Only over the byte
/// view of iopoly_alloc memory created or truncated by this run, or when
/// the headers say so already; otherwise a Mismatch naming both.
/// With \p ElementsOnly (iopoly_alloc_elems), headers that record elements
/// of G's size in any shape are left as they are. Arrays shared by MPI
/// ranks: collective (rank 0 decides and writes; every rank gets the verdict).
Status recordShape(iopoly_array &A, const iopoly::Geometry &G, bool ElementsOnly = false);
/// After the buffer wrote back everything of \p A: syncs its files and, if
/// no write started meanwhile, marks the headers clean with a new commit id.
Status commitArray(iopoly_array &A, const RetryPolicy &Retry);

/// The files an array \p Name has (or had) in directory \p Dir.
struct ArrayFileNames {
  std::string Data, DataTemp, Sums, SumsTemp, Lock;
};
ArrayFileNames arrayFileNames(const std::string &Dir, const std::string &Name);
/// The marker iopoly-relayout writes in the first disk directory once the
/// new files of \p Name are complete, before it renames them over the old.
inline std::string relayoutMarker(const std::string &FirstDir, const std::string &Name) {
  return FirstDir + "/" + Name + ".relayout-commit";
}
/// Removes every file of \p Name in \p Dirs (data, sums, temporaries; not
/// the lock file or rescue files) and syncs the directories.
Status removeArrayFiles(const std::vector<std::string> &Dirs, const std::string &Name);

} // namespace iopoly

#endif
