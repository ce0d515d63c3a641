//===- Journal.h - Crash safety of node-local data ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each rank keeps, next to its node-local copy of a shared file's chunks
// (<stem>.r<rank>.part), a journal (<stem>.r<rank>.journal) of what that
// copy holds: the byte ranges it owns that are newer than the shared file
// (DIRTY, appended before a write returns), the ranges that equal the
// shared file (VALID), and how the last run ended: CLEAN (gathered: the
// shared file is whole, stamped with its size and mtime), DEFER (closed
// without gathering: the dirty ranges are the newest data) or nothing (the
// run crashed). A record is 48 bytes with a CRC; a torn last record is
// ignored. `iopoly-partition recover` and `gather` replay DIRTY ranges
// into the shared file; at close the layer rewrites the journal compactly
// (core/OutputFile: a temporary, fsync, rename, fsync of the directory).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_APPLY_JOURNAL_H
#define IOPOLY_PROFILE_APPLY_JOURNAL_H

#include "common/Error.h"
#include "common/IntervalSet.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace iopoly::prof {

/// What identifies a version of the shared file.
struct FileStamp {
  bool Known = false;
  uint64_t Size = 0, MtimeNs = 0, Ino = 0, Dev = 0;
  bool operator==(const FileStamp &O) const {
    return Known && O.Known && Size == O.Size && MtimeNs == O.MtimeNs && Ino == O.Ino && Dev == O.Dev;
  }
};
FileStamp stampOf(const std::string &Path);

enum class RunEnd { Never, Crashed, Clean, Deferred };
const char *runEndName(RunEnd E);

/// Shared-file ranges mapped to the same place in the local file: local
/// offset = shared offset + Delta (one Delta per chunk).
using RangeMap = std::map<int64_t, IntervalSet>;

struct JournalState {
  std::string SharedPath;
  uint32_t Rank = 0, NRanks = 0;
  uint64_t Layout = 0;
  RunEnd End = RunEnd::Never;
  FileStamp Stamp; ///< at the last CLEAN/DEFER
  RangeMap Dirty;  ///< newer than the shared file
  RangeMap Valid;  ///< equal to the shared file at Stamp
  uint64_t dirtyBytes() const;
  uint64_t validBytes() const;
};

/// Reads a journal (a missing file is Errc::NotFound).
Error readJournal(const std::string &Path, JournalState &Out);

class Journal {
public:
  ~Journal() { close(); }
  /// Opens \p Path for appending; when it does not exist, it is created
  /// with a header for \p Shared.
  Error open(const std::string &Path, const std::string &Shared, uint32_t Rank, uint32_t NRanks, uint64_t Layout);
  Error beginRun(uint64_t RunId);
  /// Call after the data reached the local file, before the write returns.
  Error dirty(uint64_t SharedOff, uint64_t Len, uint64_t LocalOff);
  Error truncate(uint64_t Size);
  Error sync();
  /// Rewrites the journal as VALID \p Valid + (DEFER: DIRTY \p Dirty) +
  /// CLEAN or DEFER with \p Stamp.
  Error compact(const RangeMap &Valid, const RangeMap &Dirty, bool Deferred, const FileStamp &Stamp);
  void close();
  const std::string &path() const { return Path; }

private:
  Error append(uint8_t Kind, uint64_t A, uint64_t B, uint64_t C, uint64_t D);
  std::mutex Mu;
  int Fd = -1;
  std::string Path, Shared;
  uint32_t Rank = 0, NRanks = 0;
  uint64_t Layout = 0;
};

/// Copies the dirty ranges of \p J from the local file \p Store into the
/// shared file with POSIX I/O and fsyncs it; \p Bytes gets the amount.
Error replayDirty(const JournalState &J, const std::string &Store, uint64_t &Bytes);

/// Journals under \p Dir ("*.journal"), sorted.
std::vector<std::string> findJournals(const std::string &Dir);
/// The local file that goes with a journal.
std::string storeOfJournal(const std::string &JournalPath);

} // namespace iopoly::prof

#endif
