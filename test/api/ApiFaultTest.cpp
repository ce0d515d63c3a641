//===- ApiFaultTest.cpp - Plain code on disk-resident memory ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// api_helper is built without the plugin, so its accesses to iopoly_alloc
// memory are exactly those of "code not compiled with the plugin" (issue 9,
// section 1): plain loops and libc (memcpy, memcmp, qsort, memset) read and
// write it through page faults served from the stripe buffer, with a
// buffer much smaller than the array, under both front ends (userfaultfd
// and SIGSEGV); the data reach the files; the faults are counted and
// reported once per array; several threads may fault at once; free and
// realloc work or stop clearly; and accesses out of bounds (A[-1], past the
// end, freed memory) stop the program naming the array and the reason.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"
#include "MiniJson.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace iopoly::test;

namespace {

/// Whether this kernel gives an unprivileged userfaultfd (what "auto" and
/// "userfaultfd" then use).
bool kernelAllowsUserfaultfd() {
  long Fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1 /* UFFD_USER_MODE_ONLY */);
  if (Fd < 0)
    Fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0)
    return false;
  close(static_cast<int>(Fd));
  return true;
}

size_t count(const std::string &Text, const std::string &Part) {
  size_t N = 0;
  for (size_t At = Text.find(Part); At != std::string::npos; At = Text.find(Part, At + 1))
    ++N;
  return N;
}

class ApiFault : public ApiTest, public testing::WithParamInterface<const char *> {
protected:
  /// A 4 KiB-stripe, 16-frame buffer: the arrays below are 16 times larger.
  std::map<std::string, std::string> env(const std::string &Stats = "") {
    std::map<std::string, std::string> E = {{"IOPOLY_FAULTS", GetParam()}, {"IOPOLY_BUFFER", "64K"}};
    if (!Stats.empty())
      E["IOPOLY_STATS"] = Stats;
    return E;
  }
  std::string expectedFront() const {
    return std::string(GetParam()) == "signal" || !kernelAllowsUserfaultfd() ? "signal" : "userfaultfd";
  }
};

} // namespace

TEST_P(ApiFault, PlainCodeAndLibcWorkThroughPageFaults) {
  std::string Stats = Dir + "/stats.json";
  RunResult R = run({"alloc-plain", "plain", "1048576", "iopoly_free"}, env(Stats));
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "plain ok")) << R;
  EXPECT_EQ(1u, count(R.Err, "iopoly: note: disk-resident array 'plain' is used by code built without the iopoly "
                             "plugin"))
      << "reported once per array: " << R;
  JsonValue J;
  JsonReader Reader;
  std::string Text = readFile(Stats);
  ASSERT_TRUE(Reader.parse(Text, J)) << Reader.Error << " in " << Text;
  EXPECT_EQ(expectedFront(), J["fault_service"].S);
  // 256 stripes through 16 frames, written, read, copied, sorted, filled:
  // every pass faults on every stripe again.
  EXPECT_GT(J["faulted_accesses"].N, 4 * 256) << Text;
  const JsonValue &A = J["per_array"].Items.at(0);
  EXPECT_EQ("plain", A["array"].S);
  EXPECT_EQ(J["faulted_accesses"].N, A["faulted_accesses"].N);
  EXPECT_TRUE(A.has("faulted_from")) << Text;
  EXPECT_GT(A["written_bytes"].N, 1048576 - 1) << "the dirty stripes were written back";
}

TEST_P(ApiFault, ThreadsFaultOnOneArrayAtOnce) {
  RunResult R = run({"alloc-threads", "shared", "262144", "4"}, env());
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "threads ok")) << R;
}

TEST_P(ApiFault, OutOfBoundsAccessesStopNamingTheArray) {
  const std::pair<const char *, const char *> Cases[] = {
      {"before", "invalid access by code built without the iopoly plugin"},
      {"after", "past its end"},
      {"freed", "which has been freed"},
  };
  for (const auto &C : Cases) {
    RunResult R = run({"alloc-bad", "bad", "65536", C.first}, env());
    EXPECT_EQ(SIGABRT, R.Signal) << C.first << ": " << R;
    EXPECT_TRUE(contains(R.Out, "allocated")) << R;
    EXPECT_TRUE(contains(R.Err, "iopoly: fatal: ")) << R;
    EXPECT_TRUE(contains(R.Err, C.second)) << C.first << ": " << R;
    EXPECT_TRUE(contains(R.Err, "disk-resident array 'bad'")) << C.first << ": " << R;
    EXPECT_FALSE(contains(R.Err, "did not stop")) << R;
  }
  RunResult Before = run({"alloc-bad", "bad", "65536", "before"}, env());
  EXPECT_TRUE(contains(Before.Err, "1 byte before the start of disk-resident array 'bad' (65536 bytes)")) << Before;
}

#ifndef IOPOLY_SANITIZED // a sanitizer's free comes before libiopoly's

TEST_P(ApiFault, FreeReleasesLikeIopolyFree) {
  RunResult R = run({"alloc-plain", "freed", "262144", "free"}, env());
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "plain ok")) << R;
}

TEST_P(ApiFault, ReallocKeepsOrFreesAndNeverGrows) {
  RunResult R = run({"alloc-realloc", "re", "65536"}, env());
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "realloc ok")) << R;
  RunResult Grow = run({"alloc-bad", "grow", "65536", "realloc-grow"}, env());
  EXPECT_EQ(SIGABRT, Grow.Signal) << Grow;
  EXPECT_TRUE(contains(Grow.Err, "disk-resident array 'grow' has 65536 bytes and cannot grow")) << Grow;
  RunResult Inner = run({"alloc-bad", "inner", "65536", "free-inner"}, env());
  EXPECT_EQ(SIGABRT, Inner.Signal) << Inner;
  EXPECT_TRUE(contains(Inner.Err, "byte 8 of disk-resident array 'inner', not its start")) << Inner;
}

#endif

INSTANTIATE_TEST_SUITE_P(FrontEnds, ApiFault, testing::Values("signal", "userfaultfd"),
                         [](const testing::TestParamInfo<const char *> &I) { return std::string(I.param); });
