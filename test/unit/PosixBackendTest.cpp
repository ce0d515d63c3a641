//===- PosixBackendTest.cpp - pread/pwrite files and directory checks -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The POSIX backend on real files in a scratch directory: exclusive create,
// read-only and read-write opens, raw transfers, size and resize; errors
// that name the path; direct I/O chosen or refused with the reason recorded
// for the stats; and makeDirectories, which rejects paths that are, or lie
// under, regular files.
//
//===----------------------------------------------------------------------===//
#include "io/Backend.h"
#include "core/Config.h"

#include "TestTemp.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

using namespace iopoly;
using namespace iopoly::test;

namespace {

Config config(std::map<std::string, std::string> Vars) {
  Config C;
  EnvLookup Env = [Vars](const char *Name, std::string &Value) {
    auto It = Vars.find(Name);
    if (It == Vars.end())
      return false;
    Value = It->second;
    return true;
  };
  EXPECT_TRUE(parseConfig(Env, C).ok());
  return C;
}

/// A 4096-aligned buffer (O_DIRECT needs one).
struct Aligned {
  explicit Aligned(size_t N) {
    if (posix_memalign(&P, 4096, N) != 0)
      P = nullptr;
  }
  ~Aligned() { std::free(P); }
  char *data() { return static_cast<char *>(P); }
  void *P = nullptr;
};

} // namespace

TEST(PosixBackend, CreateWriteReadResizeClose) {
  ScratchDir Dir("posix");
  ASSERT_TRUE(Dir.ok());
  for (const char *Direct : {"auto", "off"}) {
    SCOPED_TRACE(std::string("IOPOLY_DIRECT=") + Direct);
    std::unique_ptr<Backend> B = createPosixBackend(config({{"IOPOLY_DIRECT", Direct}, {"IOPOLY_STRIPE", "4096"}}));
    std::string Path = Dir.file(std::string("f-") + Direct);
    EXPECT_FALSE(B->exists(Path));
    std::unique_ptr<BackendFile> F;
    ASSERT_TRUE(B->open(Path, OpenMode::CreateExclusive, FileHints{4096, 0, 1}, F).ok());
    EXPECT_TRUE(B->exists(Path));
    ASSERT_EQ(0, F->resize(3 * 4096));
    EXPECT_EQ(3 * 4096, F->size());
    Aligned Buf(4096);
    std::memset(Buf.data(), 0x5c, 4096);
    ASSERT_EQ(4096, F->writeAt(Buf.data(), 4096, 4096));
    ASSERT_EQ(0, F->sync());
    std::memset(Buf.data(), 0, 4096);
    ASSERT_EQ(4096, F->readAt(Buf.data(), 4096, 4096));
    EXPECT_EQ(0x5c, Buf.data()[4095]);
    EXPECT_EQ(0, F->readAt(Buf.data(), 4096, 3 * 4096)) << "end of file reads 0 bytes";
    ASSERT_EQ(0, F->close());

    // Read-only: reads work, writes fail with an errno, not a crash.
    ASSERT_TRUE(B->open(Path, OpenMode::ReadOnly, FileHints{4096, 0, 1}, F).ok());
    ASSERT_EQ(4096, F->readAt(Buf.data(), 4096, 4096));
    EXPECT_EQ(0x5c, Buf.data()[0]);
    EXPECT_EQ(-EBADF, F->writeAt(Buf.data(), 4096, 0));
    ASSERT_EQ(0, F->close());
    if (std::string(Direct) == "off")
      EXPECT_EQ("off: IOPOLY_DIRECT=off", B->directStatus());
    else
      EXPECT_TRUE(B->directStatus() == "on" || B->directStatus().rfind("off: the filesystem", 0) == 0)
          << B->directStatus();
    ASSERT_TRUE(B->remove(Path).ok());
    EXPECT_FALSE(B->exists(Path));
    EXPECT_TRUE(B->remove(Path).ok()) << "removing a missing file is not an error";
  }
}

TEST(PosixBackend, OpenErrorsNameThePath) {
  ScratchDir Dir("posix");
  std::unique_ptr<Backend> B = createPosixBackend(config({{"IOPOLY_STRIPE", "4096"}}));
  std::unique_ptr<BackendFile> F;
  std::string Missing = Dir.file("missing.iop");
  Status S = B->open(Missing, OpenMode::ReadWrite, FileHints{4096, 0, 1}, F);
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("cannot open '" + Missing + "'")) << S.message();
  std::string Existing = Dir.file("existing.iop");
  std::ofstream(Existing) << "x";
  S = B->open(Existing, OpenMode::CreateExclusive, FileHints{4096, 0, 1}, F);
  ASSERT_FALSE(S.ok()) << "an exclusive create never clobbers a file";
  EXPECT_NE(std::string::npos, S.message().find(Existing)) << S.message();
}

TEST(PosixBackend, DirectIoNeedsWholePages) {
  ScratchDir Dir("posix");
  std::unique_ptr<Backend> Auto = createPosixBackend(config({{"IOPOLY_STRIPE", "1088"}}));
  EXPECT_EQ("off: stripe size 1088 is not a multiple of 4096", Auto->directStatus());
  std::unique_ptr<BackendFile> F;
  ASSERT_TRUE(Auto->open(Dir.file("a"), OpenMode::CreateExclusive, FileHints{1088, 0, 1}, F).ok());
  EXPECT_FALSE(F->direct());
  std::unique_ptr<Backend> On = createPosixBackend(config({{"IOPOLY_STRIPE", "1088"}, {"IOPOLY_DIRECT", "on"}}));
  Status S = On->open(Dir.file("b"), OpenMode::CreateExclusive, FileHints{1088, 0, 1}, F);
  ASSERT_FALSE(S.ok()) << "IOPOLY_DIRECT=on cannot be honoured: an error, not a silent fallback";
  EXPECT_NE(std::string::npos, S.message().find("IOPOLY_DIRECT=on needs a stripe size multiple of 4096")) << S.message();
}

TEST(PosixBackend, MakeDirectoriesCreatesParentsAndRejectsFiles) {
  ScratchDir Dir("posix");
  ASSERT_TRUE(makeDirectories(Dir.file("a/b/c")).ok());
  ASSERT_TRUE(makeDirectories(Dir.file("a/b/c")).ok()) << "existing directories are fine";
  std::string Plain = Dir.file("plain");
  std::ofstream(Plain) << "file";
  Status S = makeDirectories(Plain);
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("'" + Plain + "' is not a directory")) << S.message();
  S = makeDirectories(Plain + "/sub");
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("cannot create directory '" + Plain + "/sub'")) << S.message();
}
