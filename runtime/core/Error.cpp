//===- Error.cpp - Error reporting of the runtime --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Error.h"
#include "core/Config.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace iopoly {

static thread_local std::string LastError;

std::string format(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  va_list Ap2;
  va_copy(Ap2, Ap);
  int N = std::vsnprintf(nullptr, 0, Fmt, Ap);
  va_end(Ap);
  std::string S(N > 0 ? static_cast<size_t>(N) : 0, '\0');
  if (N > 0)
    std::vsnprintf(&S[0], S.size() + 1, Fmt, Ap2);
  va_end(Ap2);
  return S;
}

// Setting the error must not throw (it runs in the C API's exception
// handlers, possibly out of memory): then a fixed text stands in.
static thread_local const char *FallbackError = nullptr;

void setLastError(const std::string &Msg) noexcept {
  try {
    LastError = Msg;
    FallbackError = nullptr;
  } catch (...) {
    FallbackError = "out of memory (while reporting an error)";
  }
}
const char *lastError() noexcept { return FallbackError ? FallbackError : LastError.c_str(); }
void clearLastError() noexcept {
  LastError.clear();
  FallbackError = nullptr;
}

void verbose(const std::string &Msg) {
  if (verboseEnabled())
    std::fprintf(stderr, "iopoly: %s\n", Msg.c_str());
}

void warning(const std::string &Msg) {
  std::fprintf(stderr, "iopoly: warning: %s\n", Msg.c_str());
}

void fatal(const std::string &Msg) {
  std::fprintf(stderr, "iopoly: fatal: %s\n", Msg.c_str());
  std::fflush(stderr);
  std::abort();
}

} // namespace iopoly
