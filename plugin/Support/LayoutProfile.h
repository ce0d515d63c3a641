//===- LayoutProfile.h - Counts of an instrumented run ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, section 4 chooses file layouts from a profile: the program is
// instrumented, counters attached to every disk-resident array. Here a
// program built with -fplugin-arg-iopoly-layout=instrument counts how many
// times each access site of each permutable array runs, and the runtime
// writes the counts at exit (IOPOLY_LAYOUT_PROFILE, include/iopoly/abi.h);
// layout=profile reads them back and weighs each site's vote with its
// count instead of an estimate. A text file, one site a line:
//
//   iopoly-layout-profile 1
//   # unit array function site kind count where
//   k.c W main 0 load 786432 k.c:21:17
//
// unit is the translation unit's source file as the compiler was given it,
// site the access's number among the accesses of that array in that
// function (in instruction order, as the layout pass sees them), kind load
// or store, where its source location (or -). Fields are separated by
// blanks and contain none. '#' starts a comment line.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_LAYOUTPROFILE_H
#define IOPOLY_PLUGIN_SUPPORT_LAYOUTPROFILE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iopoly {

struct LayoutProfileSite {
  std::string Unit, Array, Function;
  unsigned Site = 0;
  bool Store = false;
  uint64_t Count = 0;
  std::string Where;
};

struct LayoutProfile {
  std::string Path;
  std::vector<LayoutProfileSite> Sites;
  /// The sites of \p Array recorded for \p Unit; a unit recorded under
  /// another path matches by its file name when only one unit has that name
  /// (the same source compiled from another directory).
  std::vector<const LayoutProfileSite *> sitesOf(llvm::StringRef Unit, llvm::StringRef Array) const;
};

/// \p S as a profile field: blanks become '?', nothing becomes "-".
std::string profileField(llvm::StringRef S);

/// Parses \p Text (read from \p Path); "" or "PATH:LINE: what is wrong".
std::string parseLayoutProfile(llvm::StringRef Text, llvm::StringRef Path, LayoutProfile &Out);

/// Reads and parses \p Path once per compilation (later calls get the same
/// copy); "" or why it cannot be used, naming the file.
std::string loadLayoutProfile(const std::string &Path, const LayoutProfile *&Out);

} // namespace iopoly

#endif
