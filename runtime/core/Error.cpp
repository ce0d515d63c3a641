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

void setLastError(const std::string &Msg) { LastError = Msg; }
const char *lastError() { return LastError.c_str(); }
void clearLastError() { LastError.clear(); }

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
