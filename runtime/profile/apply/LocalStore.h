//===- LocalStore.h - A rank's node-local file of one shared file -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// <dir>/<stem>.r<rank>.part holds the rank's partition: its chunks one
// after the other in the plan's order (earliest timestamp first). The store
// knows, by shared-file offset, which bytes of its copy are valid (equal to
// the newest data) and which are dirty (newer than the shared file: this
// rank is their home); dirty ranges reach the journal before a write
// returns. Writes into the copy, installs of staged data and broadcast
// updates bump a per-chunk epoch, so that data fetched before a newer
// update is never installed over it. The mutex is held only around local
// file I/O, never across MPI calls.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_APPLY_LOCALSTORE_H
#define IOPOLY_PROFILE_APPLY_LOCALSTORE_H

#include "apply/Journal.h"
#include "apply/Router.h"
#include "common/IntervalSet.h"

#include <mutex>
#include <string>
#include <vector>

namespace iopoly::prof {

class LocalStore {
public:
  ~LocalStore() { close(); }
  /// Opens (creates) the local file and journal of \p Shared in \p Dir and
  /// reads what the journal says; nothing is decided yet.
  Error open(const std::string &Dir, const std::string &Shared, uint32_t Rank, uint32_t NRanks, uint64_t Layout,
             const Router *R);
  const std::string &dataPath() const { return DataPath; }
  const std::string &journalPath() const { return JournalPath; }
  /// The journal's state at open (JournalState::End == Never when new).
  const JournalState &previous() const { return Prev; }
  /// Starts afresh: empty local file and journal.
  Error reset(uint64_t RunId);
  /// Keeps the previous run's valid (and, if \p WithDirty, dirty) data.
  Error resume(uint64_t RunId, bool WithDirty);

  uint64_t epoch(uint32_t C);
  /// The parts of [Lo, Hi) that are valid here and those that are not, in
  /// one consistent view (updates may arrive meanwhile).
  void split(uint64_t Lo, uint64_t Hi, std::vector<Range> &Valid, std::vector<Range> &Invalid);

  Error read(uint32_t C, uint64_t Off, char *Buf, uint64_t Len);
  /// Bytes [Local, Local + Len) of the local file (holes read as zeros).
  Error readLocal(uint64_t Local, char *Buf, uint64_t Len) { return preadAll(Local, Buf, Len); }
  /// The home writes: data, then valid + dirty, then the journal.
  Error writeOwn(uint32_t C, uint64_t Off, const char *Buf, uint64_t Len);
  /// Several home writes that follow each other in the local file, as one
  /// write: (chunk, shared offset, length) each, data back to back.
  struct OwnPiece {
    uint32_t Chunk;
    uint64_t Off, Len;
  };
  Error writeOwnRun(const std::vector<OwnPiece> &Run, const char *Buf);
  /// Data fetched from the home or the shared file: installed where it is
  /// still invalid, and only if no update came since \p Epoch.
  Error install(uint32_t C, uint64_t Off, const char *Buf, uint64_t Len, uint64_t Epoch);
  /// A broadcast update from the chunk's writer.
  Error applyPush(uint32_t C, uint64_t Off, const char *Buf, uint64_t Len);
  /// The copy of chunk \p C is no longer valid (it was written elsewhere).
  void revoke(uint32_t C);
  /// MPI_File_set_size: nothing beyond \p Size survives.
  Error truncate(uint64_t Size);

  /// Dirty ranges (shared offsets), sorted.
  std::vector<Range> dirty();
  uint64_t dirtyBytes();
  /// After a gather: dirty bytes are now also in the shared file.
  void markClean();
  Error sync();
  /// Rewrites the journal: clean (gathered) or deferred, with the stamp.
  Error finish(bool Deferred, const FileStamp &Stamp);
  void close();

private:
  RangeMap mapOf(const IntervalSet &S);
  Error preadAll(uint64_t Off, char *Buf, uint64_t Len);
  Error pwriteAll(uint64_t Off, const char *Buf, uint64_t Len);
  std::mutex Mu;
  int Fd = -1;
  std::string DataPath, JournalPath, Shared;
  uint32_t Rank = 0, NRanks = 0;
  uint64_t Layout = 0;
  const Router *R = nullptr;
  JournalState Prev;
  Journal J;
  IntervalSet Valid, Dirty;
  std::vector<uint64_t> Epochs;
};

} // namespace iopoly::prof

#endif
