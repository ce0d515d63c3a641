//===- ApiOutputFilesTest.cpp - What IOPOLY_STATS / IOPOLY_TRACE may replace ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Files the runtime writes are atomically replaced (written under a
// temporary name next to them, then renamed) only when the path is a
// regular file or absent. A symbolic link is followed to its target and
// never replaced itself; a character device or a FIFO is written in place
// (a FIFO without a reader is refused with a message instead of blocking);
// a directory is refused. Nothing else in the directory is left behind.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"
#include "DirEntries.h"


using namespace iopoly::test;

namespace {

bool isSymlink(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0 && S_ISLNK(St.st_mode);
}
bool isCharDevice(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0 && S_ISCHR(St.st_mode);
}
bool isFifo(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0 && S_ISFIFO(St.st_mode);
}
mode_t modeOf(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0 ? St.st_mode & 07777 : 0;
}
using iopoly::test::dirEntries;
bool looksLikeStats(const std::string &Text) { return contains(Text, "\"stripe_fetches\":"); }

const std::vector<std::string> OpenCreate = {"open", "A", "8", "10", "10", "rm", "create"};

} // namespace

class ApiOutputFiles : public ApiTest {
protected:
  void SetUp() override {
    ApiTest::SetUp();
    Out = Dir + "/out";
    ASSERT_TRUE(makeTree(Out));
  }
  std::string Out;
};

TEST_F(ApiOutputFiles, AnAbsentPathIsCreatedWithNothingLeftBeside) {
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", Out + "/s.json"}});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(looksLikeStats(readFile(Out + "/s.json"))) << R;
  EXPECT_EQ(std::vector<std::string>{"s.json"}, dirEntries(Out));
}

TEST_F(ApiOutputFiles, ARegularFileIsReplacedKeepingItsPermissions) {
  std::ofstream(Out + "/s.json") << "old";
  ASSERT_EQ(0, ::chmod((Out + "/s.json").c_str(), 0600));
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", Out + "/s.json"}});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(looksLikeStats(readFile(Out + "/s.json"))) << R;
  EXPECT_EQ(0600u, modeOf(Out + "/s.json"));
  EXPECT_EQ(std::vector<std::string>{"s.json"}, dirEntries(Out));
}

TEST_F(ApiOutputFiles, ASymlinkIsFollowedAndKept) {
  ASSERT_TRUE(makeTree(Dir + "/elsewhere"));
  std::ofstream(Dir + "/elsewhere/real.json") << "old";
  ASSERT_EQ(0, ::symlink("../elsewhere/real.json", (Out + "/s.json").c_str()));
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", Out + "/s.json"}});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(isSymlink(Out + "/s.json")) << "the link was replaced";
  EXPECT_TRUE(looksLikeStats(readFile(Dir + "/elsewhere/real.json"))) << R;
  EXPECT_EQ(std::vector<std::string>{"s.json"}, dirEntries(Out));
  EXPECT_EQ(std::vector<std::string>{"real.json"}, dirEntries(Dir + "/elsewhere"));
}

TEST_F(ApiOutputFiles, ADanglingSymlinkCreatesItsTarget) {
  ASSERT_EQ(0, ::symlink("new.json", (Out + "/s.json").c_str()));
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", Out + "/s.json"}});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(isSymlink(Out + "/s.json"));
  EXPECT_TRUE(looksLikeStats(readFile(Out + "/new.json"))) << R;
}

TEST_F(ApiOutputFiles, ASymlinkToADeviceWritesTheDeviceInPlace) {
  ASSERT_EQ(0, ::symlink("/dev/null", (Out + "/null").c_str()));
  ASSERT_EQ(0, ::symlink("/dev/full", (Out + "/full").c_str()));
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", Out + "/null"}, {"IOPOLY_TRACE", Out + "/full"}});
  EXPECT_TRUE(isSymlink(Out + "/null") && isSymlink(Out + "/full")) << "a link was replaced";
  EXPECT_TRUE(isCharDevice("/dev/null") && isCharDevice("/dev/full"));
  EXPECT_EQ(0, R.Signal) << R;
  // /dev/full takes no data: the trace says so (a warning; the run's data is safe).
  EXPECT_TRUE(contains(R.Err, "IOPOLY_TRACE=" + Out + "/full")) << R;
  EXPECT_TRUE(contains(R.Err, std::strerror(ENOSPC))) << R;
  EXPECT_EQ(std::vector<std::string>({"full", "null"}), dirEntries(Out));
}

TEST_F(ApiOutputFiles, ADeviceGivenDirectlyIsWrittenInPlace) {
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", "/dev/full"}});
  EXPECT_TRUE(isCharDevice("/dev/full"));
  EXPECT_TRUE(contains(R.Err, "IOPOLY_STATS: cannot write statistics to '/dev/full'")) << R;
  EXPECT_TRUE(contains(R.Err, std::strerror(ENOSPC))) << R;
  R = run(OpenCreate, {{"IOPOLY_STATS", "/dev/null"}});
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(isCharDevice("/dev/null"));
}

TEST_F(ApiOutputFiles, AFifoWithAReaderIsWrittenInPlace) {
  std::string Fifo = Out + "/stats.fifo";
  ASSERT_EQ(0, ::mkfifo(Fifo.c_str(), 0600));
  // The read end is open before the run (a pipe holds the few KB of JSON).
  int Fd = ::open(Fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(Fd, 0);
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", Fifo}});
  std::string Got;
  char Buf[4096];
  ssize_t N;
  while ((N = ::read(Fd, Buf, sizeof Buf)) > 0)
    Got.append(Buf, static_cast<size_t>(N));
  ::close(Fd);
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(isFifo(Fifo)) << "the FIFO was replaced";
  EXPECT_TRUE(looksLikeStats(Got)) << Got;
}

TEST_F(ApiOutputFiles, AFifoWithoutAReaderIsRefusedNotWaitedFor) {
  std::string Fifo = Out + "/stats.fifo";
  ASSERT_EQ(0, ::mkfifo(Fifo.c_str(), 0600));
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", Fifo}});
  EXPECT_TRUE(isFifo(Fifo)) << "the FIFO was replaced";
  EXPECT_TRUE(contains(R.Err, "IOPOLY_STATS: cannot write statistics to '" + Fifo + "': it is a FIFO with no reader"))
      << R;
  EXPECT_EQ(std::vector<std::string>{"stats.fifo"}, dirEntries(Out));
}

TEST_F(ApiOutputFiles, ADirectoryIsRefused) {
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", Out}});
  EXPECT_TRUE(contains(R.Err, "IOPOLY_STATS: cannot write statistics to '" + Out + "': it is a directory")) << R;
  EXPECT_TRUE(dirEntries(Out).empty());
}

TEST_F(ApiOutputFiles, TheTraceFollowsTheSameRules) {
  ASSERT_TRUE(makeTree(Dir + "/elsewhere"));
  std::ofstream(Dir + "/elsewhere/t.bin") << "old";
  ASSERT_EQ(0, ::symlink("../elsewhere/t.bin", (Out + "/t.bin").c_str()));
  RunResult R = run(OpenCreate, {{"IOPOLY_TRACE", Out + "/t.bin"}});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(isSymlink(Out + "/t.bin")) << "the link was replaced";
  EXPECT_EQ("IOPTRACE", readFile(Dir + "/elsewhere/t.bin").substr(0, 8));
  EXPECT_EQ(std::vector<std::string>{"t.bin"}, dirEntries(Out));
  EXPECT_EQ(std::vector<std::string>{"t.bin"}, dirEntries(Dir + "/elsewhere"));
}

TEST_F(ApiOutputFiles, AnExistingTraceIsReplacedNotTruncated) {
  // Whoever reads the old trace keeps reading it whole: the new one is
  // renamed over it when complete.
  std::ofstream(Out + "/t.bin") << "old trace";
  int Fd = ::open((Out + "/t.bin").c_str(), O_RDONLY);
  ASSERT_GE(Fd, 0);
  RunResult R = run(OpenCreate, {{"IOPOLY_TRACE", Out + "/t.bin"}});
  char Buf[16] = {0};
  ssize_t N = ::pread(Fd, Buf, sizeof Buf, 0);
  ::close(Fd);
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_EQ("old trace", std::string(Buf, N > 0 ? static_cast<size_t>(N) : 0));
  EXPECT_EQ("IOPTRACE", readFile(Out + "/t.bin").substr(0, 8));
  EXPECT_EQ(std::vector<std::string>{"t.bin"}, dirEntries(Out));
}

TEST_F(ApiOutputFiles, TheProcessStandardErrorIsAppendedToNotReplaced) {
  // The harness sends stderr to a regular file: /proc/self/fd/2 links to it.
  RunResult R = run(OpenCreate, {{"IOPOLY_STATS", "/proc/self/fd/2"}});
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(looksLikeStats(R.Err)) << R;
  R = run(OpenCreate, {{"IOPOLY_STATS", "/dev/stderr"}});
  EXPECT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(looksLikeStats(R.Err)) << R;
}
