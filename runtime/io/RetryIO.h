//===- RetryIO.h - Whole transfers with retries -----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One place decides which errors are retried: EINTR and EAGAIN always
// (bounded), short transfers continue where they stopped, EIO is retried up
// to IOPOLY_IO_RETRIES times with a growing pause, and everything else
// (ENOSPC, EBADF, EFBIG, end of file...) is reported at once with the file,
// offset and reason.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_RETRYIO_H
#define IOPOLY_RUNTIME_RETRYIO_H

#include "io/Backend.h"

namespace iopoly {

struct RetryPolicy {
  unsigned IoRetries = 3; ///< EIO retries
  unsigned SleepMicros = 1000; ///< first pause, doubled each time
};

/// Reads exactly \p N bytes at \p Off; \p Path names the file in errors.
Status readFully(BackendFile &F, void *Buf, size_t N, uint64_t Off,
                 const std::string &Path, const RetryPolicy &P);
/// Writes exactly \p N bytes at \p Off.
Status writeFully(BackendFile &F, const void *Buf, size_t N, uint64_t Off,
                  const std::string &Path, const RetryPolicy &P);
/// fdatasync with the same retry rules.
Status syncFile(BackendFile &F, const std::string &Path, const RetryPolicy &P);

} // namespace iopoly

#endif
