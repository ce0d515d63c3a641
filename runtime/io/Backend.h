//===- Backend.h - Interface of the I/O backends ----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The stripe buffer talks to files only through this interface, so the
// buffer logic is testable with an in-memory or fault-injecting backend and
// the OS (PosixBackend.cpp) and MPI (mpiio/) specifics stay in one place each.
// Raw operations make a single attempt and return the byte count or -errno;
// retries and short transfers are handled once, in RetryIO.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_BACKEND_H
#define IOPOLY_RUNTIME_BACKEND_H

#include "core/Error.h"

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>

namespace iopoly {

/// A byte range of a file (dirty bytes of a shared array at a sync point).
struct IoRun {
  uint64_t Offset;
  size_t Len;
};

/// One open file of one disk.
class BackendFile {
public:
  virtual ~BackendFile() = default;
  /// Single attempt: bytes read (0 at end of file) or -errno.
  virtual ssize_t readAt(void *Buf, size_t N, uint64_t Off) = 0;
  /// Single attempt: bytes written or -errno.
  virtual ssize_t writeAt(const void *Buf, size_t N, uint64_t Off) = 0;
  /// Makes written data durable: 0 or -errno.
  virtual int sync() = 0;
  /// Current size in bytes, or -errno.
  virtual int64_t size() = 0;
  /// Sets the size (new bytes read as zeros): 0 or -errno.
  virtual int resize(uint64_t Size) = 0;
  /// Closes: 0 or -errno. Called at most once.
  virtual int close() = 0;
  /// Whether transfers bypass the OS page cache (O_DIRECT).
  virtual bool direct() const = 0;
  /// Whether the file is open on a group of ranks and moves data at sync
  /// points with collective calls (writeAll/readAll/syncAll), which every
  /// rank of the group then makes, with or without runs of its own.
  virtual bool collective() const { return false; }
  /// Collective: writes the packed bytes \p Buf to \p Runs (ascending,
  /// disjoint) through a file view; 0 or -errno.
  virtual int writeAll(const IoRun *Runs, size_t NumRuns, const char *Buf) {
    (void)Runs, (void)NumRuns, (void)Buf;
    return -ENOTSUP;
  }
  /// Collective: reads \p Runs into the packed \p Buf; 0 or -errno.
  virtual int readAll(const IoRun *Runs, size_t NumRuns, char *Buf) {
    (void)Runs, (void)NumRuns, (void)Buf;
    return -ENOTSUP;
  }
  /// Collective: makes every rank's writes visible to every rank's reads
  /// (MPI_File_sync); 0 or -errno.
  virtual int syncAll() { return -ENOTSUP; }
};

enum class OpenMode { ReadOnly, ReadWrite, CreateExclusive };

/// Per-file information the backend may use (striping hints).
struct FileHints {
  size_t StripeSize = 0;
  size_t DiskIndex = 0;
  size_t NumDisks = 0;
  /// Shared arrays: the MPI_Comm* of the ranks opening the file together
  /// (collectively, for MPI-IO); null for a file of this process alone.
  const void *Comm = nullptr;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;
  /// Opens \p Path. Errors name the path and the reason.
  virtual Status open(const std::string &Path, OpenMode Mode,
                      const FileHints &Hints,
                      std::unique_ptr<BackendFile> &Out) = 0;
  /// Whether \p Path exists (a file).
  virtual bool exists(const std::string &Path) = 0;
  /// Removes \p Path; missing files are not an error.
  virtual Status remove(const std::string &Path) = 0;
  /// Human-readable state of direct I/O for the stats ("on", "off: ...").
  virtual std::string directStatus() const = 0;
  /// Whether I/O may run on background threads (MPI below
  /// MPI_THREAD_SERIALIZED forbids it: prefetches then run inline).
  virtual bool allowsBackgroundIO() const { return true; }
  /// Extra backend facts for the stats, as JSON members (may be empty).
  virtual std::string statsJSON() const { return ""; }
};

/// Creates the backend named by the configuration (posix or mpiio).
struct Config;
Status createBackend(const Config &C, std::unique_ptr<Backend> &Out);

/// The POSIX backend (pread/pwrite, O_DIRECT when possible).
std::unique_ptr<Backend> createPosixBackend(const Config &C);

/// Creates directory \p Path and its parents (mode 0777 & ~umask) and checks
/// that it is writable.
Status makeDirectories(const std::string &Path);

} // namespace iopoly

#endif
