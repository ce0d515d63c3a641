//===- RetryIO.cpp - Whole transfers with retries --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "io/RetryIO.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace iopoly {

namespace {

/// Bound on EINTR/EAGAIN retries so that a broken backend cannot hang us.
constexpr unsigned MaxInterrupts = 10000;

enum class Verdict { Retry, Fail };

Verdict classify(int Err, unsigned &Interrupts, unsigned &EioTries,
                 const RetryPolicy &P) {
  if (Err == EINTR || Err == EAGAIN)
    return ++Interrupts <= MaxInterrupts ? Verdict::Retry : Verdict::Fail;
  if (Err == EIO && EioTries < P.IoRetries) {
    ::usleep(P.SleepMicros << EioTries);
    ++EioTries;
    return Verdict::Retry;
  }
  return Verdict::Fail;
}

template <typename Op>
Status transfer(Op DoOne, size_t N, uint64_t Off, const char *Verb,
                const std::string &Path, const RetryPolicy &P) {
  size_t Done = 0;
  unsigned Interrupts = 0, EioTries = 0;
  while (Done < N) {
    ssize_t R = DoOne(Done);
    if (R > 0) {
      Done += static_cast<size_t>(R);
      continue;
    }
    if (R == 0)
      return Status::error(ErrorCode::IO, format("short %s of '%s' at offset %llu: %zu of %zu bytes, then end of file",
                                  Verb, Path.c_str(), static_cast<unsigned long long>(Off), Done, N));
    int Err = static_cast<int>(-R);
    if (classify(Err, Interrupts, EioTries, P) == Verdict::Retry)
      continue;
    return Status::error(ErrorCode::IO, format("%s of %zu bytes at offset %llu of '%s' failed%s: %s", Verb, N,
                                static_cast<unsigned long long>(Off + Done), Path.c_str(),
                                EioTries ? format(" after %u retries", EioTries).c_str() : "",
                                std::strerror(Err)));
  }
  return {};
}

} // namespace

Status readFully(BackendFile &F, void *Buf, size_t N, uint64_t Off,
                 const std::string &Path, const RetryPolicy &P) {
  char *B = static_cast<char *>(Buf);
  return transfer([&](size_t Done) { return F.readAt(B + Done, N - Done, Off + Done); },
                  N, Off, "read", Path, P);
}

Status writeFully(BackendFile &F, const void *Buf, size_t N, uint64_t Off,
                  const std::string &Path, const RetryPolicy &P) {
  const char *B = static_cast<const char *>(Buf);
  return transfer([&](size_t Done) { return F.writeAt(B + Done, N - Done, Off + Done); },
                  N, Off, "write", Path, P);
}

Status syncFile(BackendFile &F, const std::string &Path, const RetryPolicy &P) {
  unsigned Interrupts = 0, EioTries = 0;
  while (true) {
    int R = F.sync();
    if (R == 0)
      return {};
    if (classify(-R, Interrupts, EioTries, P) == Verdict::Retry)
      continue;
    return Status::error(ErrorCode::IO, format("sync of '%s' failed: %s", Path.c_str(), std::strerror(-R)));
  }
}

} // namespace iopoly
