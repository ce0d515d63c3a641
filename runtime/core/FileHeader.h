//===- FileHeader.h - Self-describing header of a disk file -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each disk file starts with a HeaderBytes-long, human-readable header
// ("head -c 512 disk0/A.iop" shows it): the array's name, element size,
// dims, file layout, stripe size, disk count and the disk index of this
// file. Reopening with different settings is detected by comparing it.
// Version 2 adds what keeps files of different runs from being mixed and a
// crash from going unnoticed: the creation id (random, new for every
// creation and every IOPOLY_TRUNC), the state (dirty from the first
// write-back after a commit until the next iopoly_flush / iopoly_close
// completes) and the id of the last committed state (new at every commit),
// whether per-stripe checksums are kept, and who created the array.
// Version 1 headers (no ids) are still read.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_FILEHEADER_H
#define IOPOLY_RUNTIME_FILEHEADER_H

#include "core/Layout.h"

#include <string>

namespace iopoly {

struct FileHeader {
  std::string Name;
  Geometry Geo;
  size_t DiskIndex = 0;
  unsigned Version = 2;     ///< 1: read from an old file (no ids below)
  std::string Creation;     ///< 16 hex digits
  bool Dirty = false;       ///< write-backs since the last commit
  std::string Commit;       ///< 16 hex digits: the last committed state
  bool Checksums = false;   ///< per-stripe CRC32C in <name>.sum
  std::string Origin = "api"; ///< "api" (iopoly_open/alloc) or "global"

  /// Serializes into exactly HeaderBytes bytes (zero padded).
  std::string encode() const;
  /// Parses \p Bytes (HeaderBytes long); the error says what is wrong.
  static Status decode(const char *Bytes, size_t Size, FileHeader &Out);
  /// Empty if \p Other describes the same array file, else a sentence that
  /// names the first difference with both values ("stripe size: file has
  /// 65536, current setting is 4096").
  std::string mismatch(const FileHeader &Other) const;
};

/// A new random id of 16 hex digits (creations and commits).
std::string newRandomId();

/// Array names are used as file names: letters, digits, '_', '-', '.'
/// (not leading), at most 200 characters.
Status checkArrayName(const char *Name);

} // namespace iopoly

#endif
