//===- Cache.h - The bounded prefetch cache ---------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Regions read ahead by the helper thread, in the file's representation,
// bounded by IOPOLY_KNOWAC_CACHE bytes. Coherence rules (nothing is ever
// served stale):
//  * a write by this process to a region drops every cached copy that
//    overlaps it, including one still being read (its data is discarded
//    when the read ends);
//  * each entry remembers the file's identity, size and times when it was
//    read; the caller compares them with the file before serving (a change
//    by another process drops the entry);
//  * an entry is served only when it contains the whole request.
// Room is made by dropping entries that were already served, oldest first;
// an entry not yet served is dropped only when the caller says it is no
// longer predicted. Bytes read ahead and dropped unserved are "wasted".
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_CACHE_H
#define IOPOLY_KNOWAC_CACHE_H

#include "Region.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace iopoly {
namespace knowac {

using Clock = std::chrono::steady_clock;

/// A file by device and inode (two opens of one file are the same file).
struct FileId {
  uint64_t Dev = 0, Ino = 0;
  bool operator==(const FileId &O) const { return Dev == O.Dev && Ino == O.Ino; }
  bool operator!=(const FileId &O) const { return !(*this == O); }
};

/// What changes when a file's contents change.
struct FileSig {
  FileId Id;
  int64_t Size = 0, MtimeNs = 0, CtimeNs = 0;
  bool operator==(const FileSig &O) const {
    return Id == O.Id && Size == O.Size && MtimeNs == O.MtimeNs && CtimeNs == O.CtimeNs;
  }
  bool operator!=(const FileSig &O) const { return !(*this == O); }
};
/// stat() of \p Path; false if it fails.
bool statFile(const std::string &Path, FileSig &Out);

/// Bytes for a region read ahead: not zeroed when allocated (they are read
/// into at once), and recycled by the cache (no page faults for the next).
class Buffer {
public:
  Buffer() = default;
  explicit Buffer(size_t N) : P(new unsigned char[N]), N(N), Cap(N) {}
  unsigned char *data() { return P.get(); }
  const unsigned char *data() const { return P.get(); }
  size_t size() const { return N; }
  size_t capacity() const { return Cap; }
  /// Keeps the allocation when it is large enough.
  void resize(size_t Size) {
    if (Size > Cap)
      *this = Buffer(Size);
    N = Size;
  }

private:
  std::unique_ptr<unsigned char[]> P;
  size_t N = 0, Cap = 0;
};

struct Entry {
  enum class State { InFlight, Ready, Dropped };
  FileId File;
  int Var = -1;
  Box B;
  unsigned ElemSize = 0;
  Buffer Data; ///< B's elements, packed row-major, as in the file (sized by startFill)
  FileSig Sig;                     ///< the file when it was read
  State St = State::InFlight;
  Clock::time_point ReadyAt;
  uint64_t Served = 0; ///< gets served from it
  size_t Bytes = 0;    ///< room reserved
};

class Cache {
public:
  explicit Cache(size_t Capacity) : Capacity(Capacity) {}

  enum class Found { Miss, Partial, Hit };

  /// Registers a read of \p B (\p Bytes) about to start. Drops the served
  /// entries \p MayDrop allows (no longer predicted); makes room by dropping
  /// other served entries, then unserved ones \p MayDrop allows; null if it
  /// does not fit.
  std::shared_ptr<Entry> startFill(FileId File, int Var, const Box &B, unsigned ElemSize, size_t Bytes,
                                   const std::function<bool(const Entry &)> &MayDrop = nullptr);
  /// The read ended: the entry becomes Ready (with \p Sig), or is dropped
  /// when \p Ok is false or it was invalidated meanwhile. True if Ready.
  bool finishFill(const std::shared_ptr<Entry> &E, bool Ok, const FileSig &Sig);

  /// The read was given up before its end: the entry goes, and only the
  /// \p BytesRead already read count as wasted.
  void abandon(const std::shared_ptr<Entry> &E, uint64_t BytesRead);
  /// An entry that contains \p Want; waits while such an entry is still
  /// being read (\p Waited: how long). Partial: entries overlap \p Want but
  /// none contains it.
  Found find(FileId File, int Var, const Box &Want, std::shared_ptr<Entry> &Out, double *Waited = nullptr);
  /// Marks \p E served once (after the copy out of it); true the first time.
  bool served(const std::shared_ptr<Entry> &E);
  /// Something holds or is reading a region that contains \p B.
  bool covers(FileId File, int Var, const Box &B) const;

  /// Drops the entries of (File, Var) overlapping \p B; Var < 0: all
  /// variables of the file; B null: the whole variable. Returns how many.
  size_t invalidate(FileId File, int Var, const Box *B);
  /// Drops one entry (found stale by the caller).
  void drop(const std::shared_ptr<Entry> &E);
  /// Drops everything (at exit); unserved entries count as wasted.
  void clear();

  /// Called with true before find() waits for a read in flight and with
  /// false after (the helper must not hold that read back).
  void setWaitHook(std::function<void(bool)> Hook) { WaitHook = std::move(Hook); }

  size_t capacity() const { return Capacity; }
  size_t used() const;
  size_t entries() const;
  uint64_t wastedBytes() const;
  uint64_t evictions() const;

private:
  void dropLocked(std::list<std::shared_ptr<Entry>>::iterator It);

  const size_t Capacity;
  mutable std::mutex Mu;
  std::condition_variable Filled;
  std::list<std::shared_ptr<Entry>> Entries; // oldest first
  size_t Used = 0;
  uint64_t Wasted = 0, Evicted = 0;
  std::function<void(bool)> WaitHook;
  std::vector<Buffer> Pool; ///< buffers of dropped entries, for the next reads
  size_t PoolBytes = 0;
};

} // namespace knowac
} // namespace iopoly

#endif
