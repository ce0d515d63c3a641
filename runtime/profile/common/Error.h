//===- Error.h - Error codes and messages of the profile component -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every fallible function of the profiler, the partitioner and the partition
// layer returns an Error: a code that programs decide on and a message that
// names the thing at fault (file, variable, value) for people.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_COMMON_ERROR_H
#define IOPOLY_PROFILE_COMMON_ERROR_H

#include <cstdint>
#include <string>

namespace iopoly::prof {

enum class Errc {
  Ok = 0,
  BadInput,    ///< malformed option, environment variable, plan or profile
  NotFound,    ///< missing file or directory
  Io,          ///< a system or MPI I/O call failed
  Format,      ///< a log or journal is truncated or not of our format
  Mismatch,    ///< a plan does not fit this run (ranks, sizes, accesses)
  Unsupported, ///< a feature the component does not handle (e.g. datarep)
  Unsafe,      ///< going on would lose or corrupt data (unrecovered journal)
};

class [[nodiscard]] Error {
public:
  Error() = default;
  Error(Errc C, std::string M) : Code(C), Msg(std::move(M)) {}
  static Error success() { return Error(); }
  bool ok() const { return Code == Errc::Ok; }
  explicit operator bool() const { return !ok(); } ///< true when failed
  Errc code() const { return Code; }
  const std::string &message() const { return Msg; }

private:
  Errc Code = Errc::Ok;
  std::string Msg;
};

/// printf-style formatting into a std::string.
std::string strf(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));

/// "1.5 MiB", "512 B": sizes for reports and messages.
std::string humanBytes(double Bytes);

/// Parses a byte size by the grammar of common/Sizes.h ("4096", "64K",
/// "64KiB", "1M"; powers of 1024). "0" is accepted only when \p AllowZero.
Error parseBytes(const std::string &Text, uint64_t &Out, bool AllowZero = false);
/// Parses "8ms", "80us", "1.5s", "250ns" into seconds.
Error parseSeconds(const std::string &Text, double &Out);

} // namespace iopoly::prof

#endif
