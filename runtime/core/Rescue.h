//===- Rescue.h - Dirty blocks saved when the exit write-back fails -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// When the write-back at exit fails (a full disk, a file size limit, an I/O
// error), the blocks still dirty in the buffer are saved to a rescue file
// instead of being lost with the process: <name>.rescue in the first of the
// array's disk directories, IOPOLY_DIR, $TMPDIR and /tmp that takes it
// (<name>.rescue.1, .2... when one exists already). 'iopoly-fsck NAME
// --repair' writes them back and removes the file.
//
// Format: a text header padded to 4096 bytes ("IOPOLY-RESCUE 1", name,
// creation id, stripe size, block count, "end"), then per block, little
// endian: u64 block, u64 length, the bytes, u32 CRC32C of the bytes.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_RESCUE_H
#define IOPOLY_RUNTIME_RESCUE_H

#include "core/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iopoly {

struct RescueBlock {
  uint64_t Block = 0;
  std::string Bytes;
};

struct RescueFile {
  std::string Name, Creation;
  uint64_t StripeSize = 0;
  std::vector<RescueBlock> Blocks;
};

/// Directories a rescue file of an array on \p DiskDirs may be in, in the
/// order they are tried.
std::vector<std::string> rescueDirs(const std::vector<std::string> &DiskDirs, const std::string &BaseDir);

/// Saves \p R in the first directory of \p Dirs that takes it; its path in
/// \p Path. The error lists why each directory failed.
Status writeRescueFile(const RescueFile &R, const std::vector<std::string> &Dirs, std::string &Path);

/// Reads a rescue file; every block's CRC is checked.
Status readRescueFile(const std::string &Path, RescueFile &Out);

/// Existing rescue files of array \p Name in \p Dirs, oldest first.
std::vector<std::string> findRescueFiles(const std::vector<std::string> &Dirs, const std::string &Name);

} // namespace iopoly

#endif
