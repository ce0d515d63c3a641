//===- TestTemp.h - Scratch directories for tests that touch files -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A fresh directory under the test's working directory (ctest runs the
// unit tests in the build tree), removed with its contents at the end.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_TESTTEMP_H
#define IOPOLY_TEST_TESTTEMP_H

#include <cstdio>
#include <cstdlib>
#include <ftw.h>
#include <string>
#include <vector>

namespace iopoly {
namespace test {

class ScratchDir {
public:
  explicit ScratchDir(const char *Tag = "scratch") {
    std::string Tmpl = std::string("./") + Tag + "-XXXXXX";
    std::vector<char> Buf(Tmpl.begin(), Tmpl.end());
    Buf.push_back('\0');
    if (::mkdtemp(Buf.data()))
      Path = Buf.data();
  }
  ~ScratchDir() {
    if (!Path.empty())
      ::nftw(Path.c_str(), [](const char *P, const struct stat *, int, struct FTW *) { return std::remove(P); },
             16, FTW_DEPTH | FTW_PHYS);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  bool ok() const { return !Path.empty(); }
  std::string file(const std::string &Name) const { return Path + "/" + Name; }
  std::string Path;
};

} // namespace test
} // namespace iopoly

#endif
