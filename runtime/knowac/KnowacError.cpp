//===- KnowacError.cpp - Names of the KNOWAC error codes ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "KnowacError.h"

namespace iopoly {
namespace knowac {

const char *errcName(Errc C) {
  switch (C) {
  case Errc::Ok:
    return "ok";
  case Errc::BadOption:
    return "bad-option";
  case Errc::DbOpen:
    return "db-open";
  case Errc::DbCorrupt:
    return "db-corrupt";
  case Errc::DbForeign:
    return "db-foreign";
  case Errc::DbVersion:
    return "db-version";
  case Errc::DbBusy:
    return "db-busy";
  case Errc::DbFailed:
    return "db-failed";
  case Errc::NotFound:
    return "not-found";
  case Errc::Io:
    return "io";
  }
  return "unknown";
}

} // namespace knowac
} // namespace iopoly
