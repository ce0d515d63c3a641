//===- KnowacError.h - Error codes and messages of KNOWAC -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every fallible operation of KNOWAC returns an Error: a code that callers
// decide on (a corrupted knowledge database disables KNOWAC for the run, a
// busy one only skips the merge) and a message that names the file, the
// variable or the value at fault.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_KNOWACERROR_H
#define IOPOLY_KNOWAC_KNOWACERROR_H

#include <string>

namespace iopoly {
namespace knowac {

enum class Errc {
  Ok = 0,
  BadOption,   ///< an IOPOLY_KNOWAC* variable has a malformed value
  DbOpen,      ///< the database file cannot be opened or created
  DbCorrupt,   ///< the file is not a (sound) SQLite database
  DbForeign,   ///< a SQLite database, but not a KNOWAC knowledge base
  DbVersion,   ///< a knowledge base of a newer, unknown schema version
  DbBusy,      ///< locked by other processes longer than the busy timeout
  DbFailed,    ///< any other SQLite failure (I/O error, disk full, ...)
  NotFound,    ///< no knowledge for the application asked about
  Io,          ///< a file could not be read
};

/// Success (empty) or a code and a message.
class Error {
public:
  Error() = default;
  Error(Errc C, std::string M) : Code(C), Msg(std::move(M)) {}
  bool ok() const { return Code == Errc::Ok; }
  explicit operator bool() const { return !ok(); } ///< true when failed
  Errc code() const { return Code; }
  const std::string &message() const { return Msg; }

private:
  Errc Code = Errc::Ok;
  std::string Msg;
};

/// Short name of a code ("db-corrupt"), for statistics and tests.
const char *errcName(Errc C);

} // namespace knowac
} // namespace iopoly

#endif
