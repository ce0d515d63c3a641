//===- SpillStore.h - Private spill of shared arrays' dirty stripes -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Between two sync points, a rank's changes to an array shared by MPI
// ranks must stay its own: code that every rank runs whole (a loop that
// was not distributed) reads and updates the same elements on every rank,
// and if one rank's eviction wrote its update to the shared files, another
// rank reading the stripe afterwards would apply the update a second time.
// So a dirty stripe of a shared array evicted outside a distributed loop
// goes here: its bytes and its twin (the bytes when it became dirty) in a
// slot of an unlinked scratch file of this process, read back when the
// stripe is needed again, and handed to the sync point, which writes the
// bytes this rank changed. Inside a distributed loop (the ranks write
// disjoint elements, and its start was a sync point) evictions write
// through to the shared files as before.
//
// The store only keeps slots; the stripe buffer decides when to use it and
// holds its lock around every call except read and write (positional I/O
// on slots nobody else touches meanwhile).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_SPILLSTORE_H
#define IOPOLY_RUNTIME_SPILLSTORE_H

#include "core/Error.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

struct iopoly_array;

namespace iopoly {

class SpillStore {
public:
  /// Slots of two stripes of \p StripeSize bytes (data, twin) in a file
  /// created in \p Dir when first needed.
  SpillStore(size_t StripeSize, std::string Dir) : StripeSize(StripeSize), Dir(std::move(Dir)) {}
  ~SpillStore();
  SpillStore(const SpillStore &) = delete;
  SpillStore &operator=(const SpillStore &) = delete;

  struct Entry {
    uint64_t Slot = 0;
    bool Whole = false; ///< every byte changed (no twin kept)
    bool Ready = false; ///< its write has landed
  };
  /// The entry of stripe \p S of \p A, or null.
  const Entry *find(const iopoly_array *A, size_t S) const;
  /// Takes a slot for \p S of \p A (not Ready until markWritten).
  Status reserve(const iopoly_array *A, size_t S, bool Whole, uint64_t &Slot);
  void markWritten(const iopoly_array *A, size_t S);
  /// Gives the slot back (the stripe is in the buffer again, or on disk).
  void forget(const iopoly_array *A, size_t S);
  /// Stripes of \p A held here, ascending.
  std::vector<size_t> stripesOf(const iopoly_array *A) const;
  /// Every (array, stripe) held here.
  std::vector<std::pair<const iopoly_array *, size_t>> all() const;
  /// Whether anything of \p A (of any array when null) is held here.
  bool holdsAny(const iopoly_array *A) const;

  /// Positional I/O on one slot; \p Twin is ignored (write) or left alone
  /// (read) when the entry is Whole.
  Status write(uint64_t Slot, const char *Data, const char *Twin);
  Status read(uint64_t Slot, char *Data, char *Twin);

  /// Bytes one slot moves (for the counters and the disk model).
  size_t slotBytes(bool Whole) const { return Whole ? StripeSize : 2 * StripeSize; }

private:
  Status openFile();

  size_t StripeSize;
  std::string Dir;
  int Fd = -1;
  uint64_t NextSlot = 0;
  std::vector<uint64_t> FreeSlots;
  std::map<std::pair<const iopoly_array *, size_t>, Entry> Held;
};

} // namespace iopoly

#endif
