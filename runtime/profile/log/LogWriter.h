//===- LogWriter.h - Writes one section of a profile log ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Buffered, thread-safe writer of the records of ProfileFormat.h. Writes go
// through the write system call directly (never through an interposed
// write()). A failed write (disk full) is reported once and stops the log;
// it never fails the program's I/O.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_LOG_LOGWRITER_H
#define IOPOLY_PROFILE_LOG_LOGWRITER_H

#include "common/Error.h"
#include "log/ProfileFormat.h"

#include <mutex>
#include <string>
#include <vector>

namespace iopoly::prof {

struct SectionInfo {
  uint32_t Rank = 0, NRanks = 1, Pid = 0, Flags = 0;
  uint64_t RunId = 0, T0RealtimeNs = 0;
  std::string Host, Program, LocalDir;
};

class LogWriter {
public:
  ~LogWriter() { (void)close(); }
  /// Creates (truncates) \p Path and writes the section header.
  Error open(const std::string &Path, const SectionInfo &Info);
  bool isOpen() const { return Fd >= 0; }
  const std::string &path() const { return Path; }

  /// Writes a file record; returns the new file id.
  uint32_t addFile(const std::string &FilePath, uint64_t Instance, uint32_t CommSize,
                   uint32_t CommRank, uint32_t Amode, bool Posix);
  void access(const AccessRecord &R) { append(&R, sizeof R); }
  void event(const EventRecord &R) { append(&R, sizeof R); }

  /// Writes the buffer out; the first error is kept and returned.
  Error flush();
  Error close();
  /// Bytes written to the file so far (after flush()).
  uint64_t written() const { return Written; }

private:
  void append(const void *P, size_t N);
  void flushLocked();
  std::mutex Mu;
  int Fd = -1;
  std::string Path;
  std::vector<char> Buf;
  uint32_t NextFile = 0;
  uint64_t Written = 0;
  Error First;
};

/// Header bytes for \p Info (also used by tests to forge logs).
std::vector<char> encodeHeader(const SectionInfo &Info);

} // namespace iopoly::prof

#endif
