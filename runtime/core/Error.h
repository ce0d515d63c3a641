//===- Error.h - Error reporting of the runtime -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal functions return a Status: success, or an error code (what
// code decides on) and a message (what people read). The C API copies a
// failed Status into the calling thread's last error, which
// iopoly_last_error() returns. Messages always name the thing at fault:
// array, file, variable and value; callers branch on code(), never on the
// text.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_ERROR_H
#define IOPOLY_RUNTIME_ERROR_H

#include <string>

namespace iopoly {

/// What went wrong, for code that must react differently to failures.
enum class ErrorCode : unsigned char {
  Ok = 0,
  Failed,          ///< anything not listed below
  InvalidArgument, ///< a caller's argument is wrong (NULL, out of range, bad flags)
  Config,          ///< an IOPOLY_* variable is malformed
  TooLarge,        ///< a size overflows or exceeds what can be addressed or stored
  NoMemory,        ///< an allocation failed
  NotFound,        ///< the array (or file) does not exist
  Mismatch,        ///< the files exist with other settings, or belong to another creation
  Unclean,         ///< interrupted creation or write-back: needs recovery (iopoly-fsck)
  Corrupt,         ///< a header or a checksum is wrong
  InUse,           ///< locked by another process, or blocks still attached
  BufferFull,      ///< every frame of the stripe buffer is attached
  Busy,            ///< (internal) the LRU victim is still in flight
  IO,              ///< a read, write or sync failed
};

/// Result of an operation that can fail: ok(), or a code and a message.
class Status {
public:
  Status() = default;
  static Status error(std::string Msg) { return Status(ErrorCode::Failed, std::move(Msg)); }
  static Status error(ErrorCode C, std::string Msg) { return Status(C, std::move(Msg)); }
  /// The same code with a new message (context added around the old one).
  static Status wrap(const Status &S, std::string Msg) { return Status(S.code(), std::move(Msg)); }
  bool ok() const { return Code == ErrorCode::Ok; }
  explicit operator bool() const { return !ok(); } // true when failed
  ErrorCode code() const { return Code; }
  bool is(ErrorCode C) const { return Code == C; }
  const std::string &message() const { return Msg; }

private:
  Status(ErrorCode C, std::string M) : Code(C == ErrorCode::Ok ? ErrorCode::Failed : C), Msg(std::move(M)) {
    if (Msg.empty())
      Msg = "unknown error";
  }
  ErrorCode Code = ErrorCode::Ok;
  std::string Msg;
};

/// printf-style formatting into a std::string.
std::string format(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));

/// Records \p Msg as the calling thread's last error.
void setLastError(const std::string &Msg) noexcept;
/// The calling thread's last error ("" if none).
const char *lastError() noexcept;
/// Clears the calling thread's last error.
void clearLastError() noexcept;

/// Prints "iopoly: <Msg>" to stderr when IOPOLY_VERBOSE is set.
void verbose(const std::string &Msg);
/// Prints "iopoly: warning: <Msg>" to stderr (always).
void warning(const std::string &Msg);
/// Prints "iopoly: fatal: <Msg>" and aborts. For errors in compiled code
/// that has no way to return a status.
[[noreturn]] void fatal(const std::string &Msg);

} // namespace iopoly

#endif
