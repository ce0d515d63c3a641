//===- Options.h - IOPOLY_* variables of the profile layers ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Read once at MPI_Init through one table; a malformed value is an error
// that names the variable and the value, and switches the layer off (the
// program's I/O is never touched by a layer that is not sure what it was
// asked to do).
//
//   IOPOLY_PROFILE           prefix of the profile log: <prefix>.iopp (merged
//                            at MPI_Finalize) or <prefix>.<rank>.iopp; %h %r %p
//   IOPOLY_PROFILE_MERGE     1 (default): one file at MPI_Finalize; 0: one per rank
//   IOPOLY_PROFILE_POSIX     also log POSIX read/write/pread/pwrite on files whose
//                            absolute path starts with this prefix (profiler only)
//   IOPOLY_PARTITION_PLAN    plan.json to apply (libiopoly_partition.so)
//   IOPOLY_LOCAL_DIR         node-local directory (%h host, %r rank, %p pid);
//                            required with a plan
//   IOPOLY_PARTITION_GATHER  close (default): the shared file is made whole at
//                            MPI_File_close / MPI_Finalize; manual: data stays in
//                            the node-local files until `iopoly-partition gather`
//   IOPOLY_PARTITION_REPORT  per-rank JSON report of what the layer did (%r ...)
//   IOPOLY_PARTITION_VERBOSE 1: say at open how each planned file is applied
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MPI_OPTIONS_H
#define IOPOLY_PROFILE_MPI_OPTIONS_H

#include "common/Error.h"

#include <string>

namespace iopoly::prof {

/// Every variable readOptions() reads (the README documents each).
constexpr const char *kOptionVariables[] = {
    "IOPOLY_PROFILE",        "IOPOLY_PROFILE_MERGE",    "IOPOLY_PROFILE_POSIX",     "IOPOLY_PARTITION_PLAN",
    "IOPOLY_LOCAL_DIR",      "IOPOLY_PARTITION_GATHER", "IOPOLY_PARTITION_REPORT", "IOPOLY_PARTITION_VERBOSE"};

struct Options {
  std::string Profile;     ///< IOPOLY_PROFILE, unexpanded ("" = off)
  bool Merge = true;       ///< IOPOLY_PROFILE_MERGE
  std::string PosixPrefix; ///< IOPOLY_PROFILE_POSIX
  std::string PlanPath;    ///< IOPOLY_PARTITION_PLAN
  std::string LocalDir;    ///< IOPOLY_LOCAL_DIR, unexpanded
  bool GatherAtClose = true;
  std::string ReportPath;  ///< IOPOLY_PARTITION_REPORT, unexpanded
  bool Verbose = false;
};

/// Parses the variables; the first malformed one is the error.
Error readOptions(Options &Out);

/// "iopoly: <kind>: <message>" on stderr, in one write.
void say(const char *Kind, const std::string &Msg);

} // namespace iopoly::prof

#endif
