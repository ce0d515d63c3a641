//===- Progress.h - Progress reports and thrash warnings --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Saying what is happening on long runs (issue 9, section 4):
//  - a reporter thread prints, every IOPOLY_PROGRESS interval while stripes
//    are being read, the bytes read per array and their rate;
//  - the buffer calls noteFetch for every stripe it reads; when an array
//    has been read more than IOPOLY_THRASH times its size, one warning names
//    the array, the source loop whose accesses fetched it most (the site
//    compiled code passes to the runtime) and what would help.
// Messages go straight to file descriptor 2 (no stdio lock): they may be
// printed while the buffer lock is held.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_PROGRESS_H
#define IOPOLY_RUNTIME_PROGRESS_H

#include <cstddef>
#include <string>

struct iopoly_array;

namespace iopoly {

class Runtime;
struct Config;

/// The site (const iopoly_site *) on whose behalf this thread is calling
/// the buffer: set by lowered code's slow paths, null elsewhere.
const void *&currentSite();

/// Sets currentSite() for a scope.
class SiteScope {
public:
  explicit SiteScope(const void *Site) : Saved(currentSite()) { currentSite() = Site; }
  ~SiteScope() { currentSite() = Saved; }
  SiteScope(const SiteScope &) = delete;
  SiteScope &operator=(const SiteScope &) = delete;

private:
  const void *Saved;
};

/// Called under the buffer lock after a fetch of \p A was counted.
void noteFetch(const iopoly_array &A, size_t BufferBytes);

/// "file.c:12:5 in 'kernel'" for a site (null: "").
std::string describeSite(const void *Site);

/// Writes \p Line to stderr with one system call.
void writeStderr(const std::string &Line);

/// Starts the reporter if the configuration asks for it (IOPOLY_PROGRESS).
void startProgress(Runtime &RT, const Config &C);
/// Stops it (at shutdown).
void stopProgress();

/// 1536 -> "1.5 KiB".
std::string humanBytes(double Bytes);

} // namespace iopoly

#endif
