//===- JournalTest.cpp - Crash safety of node-local data -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "apply/Journal.h"

#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

using namespace iopoly::prof;
using namespace iopoly::prof::test;

namespace {
void put(const std::string &Path, const std::string &Data) {
  std::ofstream(Path, std::ios::binary) << Data;
}
std::string get(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
}
} // namespace

TEST(Journal, ACrashedRunIsReplayedIntoTheSharedFile) {
  TempDir D;
  std::string Shared = D.Path + "/shared", Store = D.Path + "/s.part", J = D.Path + "/s.journal";
  put(Shared, std::string(100, '.'));
  put(Store, "ABCDEFGHIJ");
  {
    Journal W;
    ASSERT_TRUE(W.open(J, Shared, 1, 4, 77).ok());
    ASSERT_TRUE(W.beginRun(5).ok());
    ASSERT_TRUE(W.dirty(40, 4, 0).ok()); // local bytes 0..3 are shared 40..43
    ASSERT_TRUE(W.dirty(90, 6, 4).ok()); // local 4..9 are shared 90..95
  }
  JournalState S;
  ASSERT_TRUE(readJournal(J, S).ok());
  EXPECT_EQ(S.End, RunEnd::Crashed);
  EXPECT_EQ(S.Rank, 1u);
  EXPECT_EQ(S.NRanks, 4u);
  EXPECT_EQ(S.Layout, 77u);
  EXPECT_EQ(S.SharedPath, Shared);
  EXPECT_EQ(S.dirtyBytes(), 10u);
  uint64_t Bytes = 0;
  ASSERT_TRUE(replayDirty(S, Store, Bytes).ok());
  EXPECT_EQ(Bytes, 10u);
  std::string Want = std::string(100, '.');
  Want.replace(40, 4, "ABCD");
  Want.replace(90, 6, "EFGHIJ");
  EXPECT_EQ(get(Shared), Want);
}

TEST(Journal, CleanAndDeferredEndsWithStamps) {
  TempDir D;
  std::string Shared = D.Path + "/shared", J = D.Path + "/s.journal";
  put(Shared, "xxxx");
  FileStamp St = stampOf(Shared);
  ASSERT_TRUE(St.Known);
  Journal W;
  ASSERT_TRUE(W.open(J, Shared, 0, 2, 1).ok());
  ASSERT_TRUE(W.beginRun(1).ok());
  RangeMap Valid, Dirty;
  Valid[-100].insert(100, 200);
  Dirty[-300].insert(300, 310);
  ASSERT_TRUE(W.compact(Valid, Dirty, true, St).ok());
  JournalState S;
  ASSERT_TRUE(readJournal(J, S).ok());
  EXPECT_EQ(S.End, RunEnd::Deferred);
  EXPECT_TRUE(S.Stamp == St);
  EXPECT_EQ(S.dirtyBytes(), 10u);
  EXPECT_EQ(S.validBytes(), 100u);
  // Appending after a compaction goes to the new file.
  ASSERT_TRUE(W.beginRun(2).ok());
  ASSERT_TRUE(readJournal(J, S).ok());
  EXPECT_EQ(S.End, RunEnd::Crashed);
  ASSERT_TRUE(W.compact(Valid, {}, false, St).ok());
  ASSERT_TRUE(readJournal(J, S).ok());
  EXPECT_EQ(S.End, RunEnd::Clean);
  EXPECT_EQ(S.dirtyBytes(), 0u);
}

TEST(Journal, TornTailAndTruncation) {
  TempDir D;
  std::string J = D.Path + "/s.journal";
  {
    Journal W;
    ASSERT_TRUE(W.open(J, "/x", 0, 1, 1).ok());
    ASSERT_TRUE(W.beginRun(1).ok());
    ASSERT_TRUE(W.dirty(0, 100, 0).ok());
    ASSERT_TRUE(W.truncate(50).ok());
    ASSERT_TRUE(W.dirty(200, 10, 100).ok());
  }
  std::string Data = get(J);
  put(J, Data.substr(0, Data.size() - 7)); // the last record torn by a crash
  JournalState S;
  ASSERT_TRUE(readJournal(J, S).ok());
  EXPECT_EQ(S.dirtyBytes(), 50u); // 0..49 after the truncation; the torn record is gone
  put(J, "not a journal at all, just text of some length....");
  EXPECT_EQ(readJournal(J, S).code(), Errc::Format);
  EXPECT_EQ(readJournal(D.Path + "/none", S).code(), Errc::NotFound);
}

TEST(Journal, CompactionKeepsASymlinkAndAppendsGoToItsTarget) {
  TempDir D;
  std::string Shared = D.Path + "/shared", J = D.Path + "/s.journal", Real = D.Path + "/node/s.journal";
  put(Shared, "xxxx");
  ASSERT_EQ(0, ::mkdir((D.Path + "/node").c_str(), 0755));
  ASSERT_EQ(0, ::symlink("node/s.journal", J.c_str()));
  Journal W;
  ASSERT_TRUE(W.open(J, Shared, 0, 2, 1).ok());
  ASSERT_TRUE(W.beginRun(1).ok());
  RangeMap Valid;
  Valid[0].insert(0, 4);
  Error E = W.compact(Valid, {}, false, stampOf(Shared));
  ASSERT_TRUE(E.ok()) << E.message();
  struct stat St;
  ASSERT_EQ(0, ::lstat(J.c_str(), &St));
  EXPECT_TRUE(S_ISLNK(St.st_mode)) << "the link was replaced";
  JournalState S;
  ASSERT_TRUE(readJournal(Real, S).ok());
  EXPECT_EQ(S.End, RunEnd::Clean);
  ASSERT_TRUE(W.beginRun(2).ok());
  ASSERT_TRUE(readJournal(Real, S).ok());
  EXPECT_EQ(S.End, RunEnd::Crashed) << "the append after the compaction missed the new file";
}

TEST(Journal, CompactionOntoADirectoryFailsWithTheReason) {
  TempDir D;
  std::string J = D.Path + "/s.journal";
  Journal W;
  ASSERT_TRUE(W.open(J, "/x", 0, 1, 1).ok());
  ASSERT_EQ(0, ::unlink(J.c_str()));
  ASSERT_EQ(0, ::mkdir(J.c_str(), 0755));
  Error E = W.compact({}, {}, false, FileStamp());
  EXPECT_EQ(E.code(), Errc::Io);
  EXPECT_EQ(E.message(), "cannot write the journal to '" + J + "': it is a directory");
}
