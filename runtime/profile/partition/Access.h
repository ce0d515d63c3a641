//===- Access.h - Program accesses of one file, from profiles ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The partitioner's input: every read or write the program made to a file,
// as (rank in the file's communicator, operation, file byte range, time).
// collectAccesses() extracts them from the runs of one or more logs, leaving
// out the partition layer's own traffic, POSIX records and accesses whose
// view could not be flattened; files it cannot plan are listed with the
// reason.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_PARTITION_ACCESS_H
#define IOPOLY_PROFILE_PARTITION_ACCESS_H

#include "log/LogReader.h"

#include <map>
#include <string>
#include <vector>

namespace iopoly::prof {

struct Access {
  uint32_t Rank = 0; ///< rank in the file's communicator
  IoOp Op = IoOp::Read;
  uint64_t Offset = 0, Length = 0;
  uint64_t Time = 0; ///< ns since the start of its run
  uint32_t Seq = 0;  ///< position in the rank's sequence for this file
  uint32_t Call = 0; ///< the program call it came from (per rank)
};

/// The accesses of one file in one run.
struct RunAccesses {
  uint64_t RunId = 0;
  uint32_t NRanks = 0; ///< size of the file's communicator
  std::vector<Access> List;
  std::vector<uint64_t> SizeAtOpen; ///< file size after each open (rank 0)
};

struct FileProfile {
  std::string Path;
  std::vector<RunAccesses> Runs; ///< one entry per run that used the file
  std::string Excluded;          ///< why the file cannot be planned ("" = plannable)
};

/// Collects the program accesses of every file in \p Runs, by path.
/// \p Notes gets remarks on left-out records (POSIX, unflattened views).
void collectAccesses(const std::vector<Run> &Runs, std::map<std::string, FileProfile> &Out,
                     std::vector<std::string> &Notes);

} // namespace iopoly::prof

#endif
