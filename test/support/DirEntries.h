//===- DirEntries.h - What a directory holds, for tests -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by the test binaries that check a writer left nothing beside its
// file (no temporary, no stray copy).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_SUPPORT_DIRENTRIES_H
#define IOPOLY_TEST_SUPPORT_DIRENTRIES_H

#include <algorithm>
#include <dirent.h>
#include <string>
#include <vector>

namespace iopoly::test {

/// The names in directory \p Dir, sorted, without "." and "..".
inline std::vector<std::string> dirEntries(const std::string &Dir) {
  std::vector<std::string> Out;
  if (DIR *H = ::opendir(Dir.c_str())) {
    while (struct dirent *E = ::readdir(H))
      if (std::string(E->d_name) != "." && std::string(E->d_name) != "..")
        Out.push_back(E->d_name);
    ::closedir(H);
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

} // namespace iopoly::test

#endif
