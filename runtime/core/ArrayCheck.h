//===- ArrayCheck.h - Inspecting, repairing and removing arrays -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What iopoly-fsck does, as functions (tested through the tool): read an
// array's files in the configured disk directories without opening it
// through the runtime, say which state it is in, and recover it. Works on
// the files with plain POSIX I/O and holds the array's lock while changing
// anything, so it never races a program using the array.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_ARRAYCHECK_H
#define IOPOLY_RUNTIME_ARRAYCHECK_H

#include "core/Config.h"
#include "core/FileHeader.h"

#include <string>
#include <vector>

namespace iopoly {

enum class ArrayState {
  Absent,      ///< no file of it
  Clean,       ///< opens
  Dirty,       ///< a write-back was under way when its process stopped
  Interrupted, ///< its creation did not finish
  Incomplete,  ///< some disk files are missing
  Mixed,       ///< files of different creations or committed states
  Mismatch,    ///< made with other settings (stripe size, disk count)
  Damaged,     ///< unreadable header, wrong size, bad sums file
};

struct ArrayInspection {
  ArrayState State = ArrayState::Absent;
  std::string Summary;               ///< one line: "array 'A': clean: ..."
  FileHeader Header;                 ///< of the first file, when readable
  std::vector<std::string> Rescues;  ///< rescue files found
};

/// Reads the state of array \p Name (nothing is modified).
Status inspectArray(const Config &C, const std::string &Name, ArrayInspection &Out);

/// --repair: an interrupted creation is removed (nothing of it was
/// committed); a dirty or clean array gets its rescue files written back,
/// its checksums rebuilt from the data, and clean headers with a new commit
/// id. Mixed, incomplete, mismatched or damaged arrays are not repaired.
/// \p Report says what was done.
Status repairArray(const Config &C, const std::string &Name, std::string &Report);

/// --remove: deletes every file of the array (data, sums, temporaries,
/// rescue files).
Status removeArray(const Config &C, const std::string &Name, std::string &Report);

} // namespace iopoly

#endif
