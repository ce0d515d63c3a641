//===- Paths.h - File names: templates, absolute paths, stores ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_COMMON_PATHS_H
#define IOPOLY_PROFILE_COMMON_PATHS_H

#include "common/Error.h"

#include <string>

namespace iopoly::prof {

/// The host name (gethostname), "" if unknown.
std::string hostName();
/// Expands %h (host), %r (rank), %p (pid) and %% in \p Pattern. Any other
/// % sequence is an error naming \p What.
Error expandPattern(const std::string &Pattern, const std::string &What, int Rank, std::string &Out);
/// The absolute, normalized form of an MPI-IO file name: a ROMIO prefix
/// ("ufs:", "nfs:", "lustre:", ...) is dropped, a relative name is taken
/// from the working directory, and symbolic links are resolved where the
/// file exists, so every rank names a file the same way.
std::string canonicalFile(const std::string &Name);
/// "<basename>.<16 hex digits of a hash of the path>": the stem of the
/// node-local files that belong to the shared file \p Path.
std::string storeStem(const std::string &Path);
/// mkdir -p.
Error makeDirs(const std::string &Dir);

} // namespace iopoly::prof

#endif
