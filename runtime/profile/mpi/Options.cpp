//===- Options.cpp - IOPOLY_* variables of the profile layers --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/Options.h"

#include <cstdlib>
#include <sys/syscall.h>
#include <unistd.h>

namespace iopoly::prof {

namespace {
bool env(const char *Name, std::string &Out) {
  const char *V = std::getenv(Name);
  if (!V)
    return false;
  Out = V;
  return true;
}

Error boolean(const char *Name, const std::string &V, bool &Out) {
  if (V == "1" || V == "yes" || V == "on" || V == "true")
    Out = true;
  else if (V == "0" || V == "no" || V == "off" || V == "false")
    Out = false;
  else
    return Error(Errc::BadInput, strf("%s='%s': expected 0 or 1", Name, V.c_str()));
  return Error();
}
} // namespace

Error readOptions(Options &O) {
  std::string V;
  if (env("IOPOLY_PROFILE", V)) {
    if (V.empty())
      return Error(Errc::BadInput, "IOPOLY_PROFILE is set but empty (give a file prefix)");
    O.Profile = V;
  }
  if (env("IOPOLY_PROFILE_MERGE", V))
    if (Error E = boolean("IOPOLY_PROFILE_MERGE", V, O.Merge))
      return E;
  if (env("IOPOLY_PROFILE_POSIX", V)) {
    if (V.empty() || V[0] != '/')
      return Error(Errc::BadInput, strf("IOPOLY_PROFILE_POSIX='%s': give an absolute path prefix", V.c_str()));
    O.PosixPrefix = V;
  }
  if (env("IOPOLY_PARTITION_PLAN", V)) {
    if (V.empty())
      return Error(Errc::BadInput, "IOPOLY_PARTITION_PLAN is set but empty (give plan.json)");
    O.PlanPath = V;
  }
  if (env("IOPOLY_LOCAL_DIR", V))
    O.LocalDir = V;
  if (env("IOPOLY_PARTITION_GATHER", V)) {
    if (V == "close")
      O.GatherAtClose = true;
    else if (V == "manual")
      O.GatherAtClose = false;
    else
      return Error(Errc::BadInput, strf("IOPOLY_PARTITION_GATHER='%s': expected close or manual", V.c_str()));
  }
  if (env("IOPOLY_PARTITION_REPORT", V))
    O.ReportPath = V;
  if (env("IOPOLY_PARTITION_VERBOSE", V))
    if (Error E = boolean("IOPOLY_PARTITION_VERBOSE", V, O.Verbose))
      return E;
  if (!O.PlanPath.empty() && O.LocalDir.empty())
    return Error(Errc::BadInput, "IOPOLY_PARTITION_PLAN needs IOPOLY_LOCAL_DIR (the node-local directory, e.g. "
                                 "/local/scratch/%h)");
  return Error();
}

void say(const char *Kind, const std::string &Msg) {
  std::string Line = strf("iopoly: %s: %s\n", Kind, Msg.c_str());
  syscall(SYS_write, 2, Line.data(), Line.size());
}

} // namespace iopoly::prof
