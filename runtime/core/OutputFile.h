//===- OutputFile.h - Writing a file the user named, safely -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every file the runtime writes at a path the user gave (IOPOLY_STATS,
// IOPOLY_TRACE, iopoly_write_stats, rescue files) goes through here, with
// one rule per kind of path:
//  - absent or a regular file: written under a temporary name in the same
//    directory, synced, renamed over the path, directory synced. Readers
//    see the old file or the new one, never half of one; the mode of an
//    existing file is kept;
//  - a symbolic link: followed (a chain, relative or absolute); the rule of
//    its target applies there, and the link itself is never replaced;
//  - a character device or a FIFO: written in place (a FIFO without a
//    reader is refused at once rather than waited for);
//  - a directory, a block device, a socket: refused with a message.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_OUTPUTFILE_H
#define IOPOLY_RUNTIME_OUTPUTFILE_H

#include "core/Error.h"

#include <memory>
#include <string>

namespace iopoly {

class OutputFile {
public:
  /// Opens \p Path for writing by the rules above. Errors read "cannot
  /// write <What> to '<Path>': <reason>".
  static Status open(const std::string &Path, const std::string &What, std::unique_ptr<OutputFile> &Out);
  ~OutputFile(); ///< abandons an uncommitted temporary file
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  /// Appends \p N bytes.
  Status write(const void *Data, size_t N);
  /// Finishes: in place, closes; replaced, syncs and renames over the path.
  /// After an error nothing replaced the path (the temporary is removed).
  Status commit();
  /// Whether the path is being replaced (false: written in place).
  bool replacing() const { return !Temp.empty(); }

private:
  OutputFile() = default;
  Status fail(const std::string &Why);
  std::string Path;   ///< as the user gave it
  std::string Target; ///< what a rename replaces (the link's target)
  std::string Temp;   ///< temporary name, empty when writing in place
  std::string What;
  int Fd = -1;
};

/// Writes \p Data as the whole content of \p Path (OutputFile rules).
Status writeWholeFile(const std::string &Path, const std::string &Data, const std::string &What);

} // namespace iopoly

#endif
