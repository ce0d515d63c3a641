//===- Error.h - Error reporting of the runtime -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal functions return a Status (empty string = success). The C API
// copies a failed Status into the calling thread's last error, which
// iopoly_last_error() returns. Messages always name the thing at fault:
// array, file, variable and value.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_ERROR_H
#define IOPOLY_RUNTIME_ERROR_H

#include <string>

namespace iopoly {

/// Result of an operation that can fail: ok() or a message.
class Status {
public:
  Status() = default;
  static Status error(std::string Msg) { return Status(std::move(Msg)); }
  bool ok() const { return Msg.empty(); }
  explicit operator bool() const { return !ok(); } // true when failed
  const std::string &message() const { return Msg; }

private:
  explicit Status(std::string M) : Msg(std::move(M)) {
    if (Msg.empty())
      Msg = "unknown error";
  }
  std::string Msg;
};

/// printf-style formatting into a std::string.
std::string format(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));

/// Records \p Msg as the calling thread's last error.
void setLastError(const std::string &Msg);
/// The calling thread's last error ("" if none).
const char *lastError();
/// Clears the calling thread's last error.
void clearLastError();

/// Prints "iopoly: <Msg>" to stderr when IOPOLY_VERBOSE is set.
void verbose(const std::string &Msg);
/// Prints "iopoly: warning: <Msg>" to stderr (always).
void warning(const std::string &Msg);
/// Prints "iopoly: fatal: <Msg>" and aborts. For errors in compiled code
/// that has no way to return a status.
[[noreturn]] void fatal(const std::string &Msg);

} // namespace iopoly

#endif
