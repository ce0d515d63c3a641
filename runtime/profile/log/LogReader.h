//===- LogReader.h - Reads profile logs into sections and runs ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Parses the records of ProfileFormat.h. A file may hold several sections
// (merged logs, or per-rank logs concatenated); sections with the same run
// id form a Run, indexed by rank. Damaged input is reported with the file
// and the byte offset; a truncated tail (a crashed run) is a warning.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_LOG_LOGREADER_H
#define IOPOLY_PROFILE_LOG_LOGREADER_H

#include "common/Error.h"
#include "log/ProfileFormat.h"

#include <map>
#include <string>
#include <vector>

namespace iopoly::prof {

struct LoggedFile {
  std::string Path;
  uint64_t Instance = 0;
  uint32_t CommSize = 1, CommRank = 0, Amode = 0;
  bool Posix = false;
};

struct Section {
  std::string Source; ///< the log file it came from
  uint32_t Rank = 0, NRanks = 1, Pid = 0, Flags = 0;
  uint64_t RunId = 0, T0RealtimeNs = 0;
  std::string Host, Program, LocalDir;
  std::map<uint32_t, LoggedFile> Files;
  std::vector<AccessRecord> Accesses; ///< in the order written
  std::vector<EventRecord> Events;

  const LoggedFile *file(uint32_t Id) const {
    auto It = Files.find(Id);
    return It == Files.end() ? nullptr : &It->second;
  }
  /// Absolute CLOCK_REALTIME of a record time.
  uint64_t absNs(uint64_t T) const { return T0RealtimeNs + T; }
};

/// All sections of one run, by rank (Ranks[r] is null when missing).
struct Run {
  uint64_t RunId = 0;
  uint32_t NRanks = 0;
  std::vector<const Section *> Ranks;
  uint64_t T0 = 0; ///< earliest T0RealtimeNs of its sections
  std::vector<std::string> Sources;
  size_t missingRanks() const;
};

/// Appends the sections of \p Path to \p Out; \p Warnings gets notes about
/// truncated tails.
Error readLog(const std::string &Path, std::vector<Section> &Out, std::vector<std::string> &Warnings);
/// Parses sections from memory (the tests forge logs this way).
Error parseLog(const char *Data, size_t Size, const std::string &Name, std::vector<Section> &Out,
               std::vector<std::string> &Warnings);
/// Groups sections into runs (in order of first appearance). Two sections
/// of the same rank in one run are an error.
Error groupRuns(const std::vector<Section> &Sections, std::vector<Run> &Out);

} // namespace iopoly::prof

#endif
