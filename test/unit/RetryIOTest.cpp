//===- RetryIOTest.cpp - Which I/O errors are retried and how they read ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// EINTR, EAGAIN and short transfers are retried until the whole transfer is
// done; EIO is retried IOPOLY_IO_RETRIES times and then reported; ENOSPC and
// other errors are reported at once; end of file is reported as a short
// read. Every message names the file and the offset. A scripted file gives
// each call's result exactly.
//
//===----------------------------------------------------------------------===//
#include "io/RetryIO.h"

#include "TestBackends.h"

#include <gtest/gtest.h>

#include <deque>

using namespace iopoly;
using namespace iopoly::test;

namespace {

/// Each call pops one scripted result: a negative errno, or a byte count
/// (clamped to the request) that is transferred from/to Data. When the
/// script is empty, Default is used.
class ScriptFile : public BackendFile {
public:
  std::deque<long> Script;
  long Default = 1L << 30;
  std::vector<char> Data = std::vector<char>(1 << 16, 0);
  std::vector<uint64_t> Offsets; ///< offset of every call
  int SyncCalls = 0;

  long nextResult() {
    if (Script.empty())
      return Default;
    long R = Script.front();
    Script.pop_front();
    return R;
  }
  ssize_t readAt(void *Buf, size_t N, uint64_t Off) override {
    Offsets.push_back(Off);
    long R = nextResult();
    if (R < 0)
      return R;
    size_t M = std::min<size_t>({static_cast<size_t>(R), N, Data.size() - std::min<size_t>(Off, Data.size())});
    std::memcpy(Buf, Data.data() + Off, M);
    return static_cast<ssize_t>(M);
  }
  ssize_t writeAt(const void *Buf, size_t N, uint64_t Off) override {
    Offsets.push_back(Off);
    long R = nextResult();
    if (R < 0)
      return R;
    size_t M = std::min<size_t>(static_cast<size_t>(R), N);
    std::memcpy(Data.data() + Off, Buf, M);
    return static_cast<ssize_t>(M);
  }
  int sync() override {
    ++SyncCalls;
    return static_cast<int>(std::min(nextResult(), 0L));
  }
  int64_t size() override { return static_cast<int64_t>(Data.size()); }
  int resize(uint64_t) override { return 0; }
  int close() override { return 0; }
  bool direct() const override { return false; }
};

RetryPolicy policy(unsigned Retries) {
  RetryPolicy P;
  P.IoRetries = Retries;
  P.SleepMicros = 1;
  return P;
}

std::vector<char> pattern(size_t N, char Seed) {
  std::vector<char> V(N);
  for (size_t I = 0; I < N; ++I)
    V[I] = static_cast<char>(Seed + I * 7);
  return V;
}

bool contains(const Status &S, const std::string &Part) { return S.message().find(Part) != std::string::npos; }

} // namespace

TEST(RetryIO, InterruptedAndAgainAreRetried) {
  ScriptFile F;
  F.Script = {-EINTR, -EAGAIN, -EINTR};
  std::vector<char> In = pattern(1000, 1);
  ASSERT_TRUE(writeFully(F, In.data(), In.size(), 100, "f", policy(0)).ok());
  EXPECT_EQ(4u, F.Offsets.size());
  EXPECT_EQ(0, std::memcmp(F.Data.data() + 100, In.data(), In.size()));

  F.Script = {-EINTR};
  std::vector<char> Out(1000);
  ASSERT_TRUE(readFully(F, Out.data(), Out.size(), 100, "f", policy(0)).ok());
  EXPECT_EQ(In, Out);
}

TEST(RetryIO, ShortTransfersContinueWhereTheyStopped) {
  ScriptFile F;
  F.Script = {300, 1, 299};
  std::vector<char> In = pattern(1000, 2);
  ASSERT_TRUE(writeFully(F, In.data(), In.size(), 4096, "f", policy(0)).ok());
  EXPECT_EQ((std::vector<uint64_t>{4096, 4396, 4397, 4696}), F.Offsets);
  EXPECT_EQ(0, std::memcmp(F.Data.data() + 4096, In.data(), In.size()));

  F.Offsets.clear();
  F.Script = {10, -EINTR, 500};
  std::vector<char> Out(1000);
  ASSERT_TRUE(readFully(F, Out.data(), Out.size(), 4096, "f", policy(0)).ok());
  EXPECT_EQ((std::vector<uint64_t>{4096, 4106, 4106, 4606}), F.Offsets);
  EXPECT_EQ(In, Out);
}

TEST(RetryIO, TransientEioIsRetriedAndSucceeds) {
  ScriptFile F;
  F.Script = {-EIO, -EIO};
  std::vector<char> In = pattern(512, 3);
  ASSERT_TRUE(writeFully(F, In.data(), In.size(), 0, "f", policy(2)).ok());
  EXPECT_EQ(3u, F.Offsets.size());
}

TEST(RetryIO, PersistentEioIsRetriedUpToTheLimitThenReported) {
  ScriptFile F;
  F.Default = -EIO;
  std::vector<char> Buf(512);
  Status S = readFully(F, Buf.data(), Buf.size(), 8192, "/disk3/A.iop", policy(3));
  ASSERT_FALSE(S.ok());
  EXPECT_EQ(4u, F.Offsets.size()) << "one attempt and three retries";
  EXPECT_TRUE(contains(S, "'/disk3/A.iop'")) << S.message();
  EXPECT_TRUE(contains(S, "offset 8192")) << S.message();
  EXPECT_TRUE(contains(S, "after 3 retries")) << S.message();
  EXPECT_TRUE(contains(S, std::strerror(EIO))) << S.message();

  F.Offsets.clear();
  S = writeFully(F, Buf.data(), Buf.size(), 0, "f", policy(0));
  ASSERT_FALSE(S.ok());
  EXPECT_EQ(1u, F.Offsets.size()) << "IOPOLY_IO_RETRIES=0: no retry";
}

TEST(RetryIO, NoSpaceIsReportedAtOnceWithFileAndOffset) {
  ScriptFile F;
  F.Script = {100, -ENOSPC};
  std::vector<char> In = pattern(1000, 4);
  Status S = writeFully(F, In.data(), In.size(), 4096, "/disk0/B.iop", policy(5));
  ASSERT_FALSE(S.ok());
  EXPECT_EQ(2u, F.Offsets.size()) << "ENOSPC is not retried";
  EXPECT_TRUE(contains(S, "write of 1000 bytes")) << S.message();
  EXPECT_TRUE(contains(S, "offset 4196")) << "the offset where it failed: " << S.message();
  EXPECT_TRUE(contains(S, "'/disk0/B.iop'")) << S.message();
  EXPECT_TRUE(contains(S, std::strerror(ENOSPC))) << S.message();
  EXPECT_FALSE(contains(S, "retries")) << S.message();
}

TEST(RetryIO, OtherErrorsAreNotRetried) {
  for (int Err : {EBADF, EFBIG, EROFS, EACCES}) {
    ScriptFile F;
    F.Default = -Err;
    char B[64];
    Status S = readFully(F, B, sizeof B, 0, "f", policy(3));
    ASSERT_FALSE(S.ok());
    EXPECT_EQ(1u, F.Offsets.size()) << std::strerror(Err);
    EXPECT_TRUE(contains(S, std::strerror(Err))) << S.message();
  }
}

TEST(RetryIO, EndOfFileIsAShortRead) {
  MemFile F;
  F.Data = pattern(5000, 5);
  std::vector<char> Buf(4096);
  Status S = readFully(F, Buf.data(), Buf.size(), 4096, "/disk1/C.iop", policy(3));
  ASSERT_FALSE(S.ok());
  EXPECT_TRUE(contains(S, "short read of '/disk1/C.iop' at offset 4096: 904 of 4096 bytes, then end of file"))
      << S.message();
}

TEST(RetryIO, FaultPlanTransientFaultsAreInvisibleToTheCaller) {
  // Op 1 is the write, op 2 the read.
  for (Fault K : {Fault::Eintr, Fault::Short, Fault::EioOnce})
    for (unsigned long long At : {1ULL, 2ULL}) {
      auto Plan = std::make_shared<FaultPlan>();
      Plan->Kind = K;
      Plan->FailAt = At;
      MemFile F(Plan);
      std::vector<char> In = pattern(4096, 6), Out(4096);
      SCOPED_TRACE(testing::Message() << "fault " << static_cast<int>(K) << " at op " << At);
      ASSERT_TRUE(writeFully(F, In.data(), In.size(), 0, "f", policy(1)).ok());
      ASSERT_TRUE(readFully(F, Out.data(), Out.size(), 0, "f", policy(1)).ok());
      EXPECT_EQ(In, Out);
      EXPECT_TRUE(Plan->Tripped);
    }
}

TEST(RetryIO, EndlessInterruptsCannotHang) {
  ScriptFile F;
  F.Default = -EINTR;
  char B[16];
  Status S = readFully(F, B, sizeof B, 0, "f", policy(0));
  ASSERT_FALSE(S.ok());
  EXPECT_TRUE(contains(S, std::strerror(EINTR))) << S.message();
  EXPECT_GT(F.Offsets.size(), 1000u);
}

TEST(RetryIO, SyncRetriesInterruptsAndReportsTheFile) {
  ScriptFile F;
  F.Script = {-EINTR, 0};
  EXPECT_TRUE(syncFile(F, "f", policy(0)).ok());
  EXPECT_EQ(2, F.SyncCalls);

  F.Script.clear();
  F.Default = -EIO;
  F.SyncCalls = 0;
  Status S = syncFile(F, "/disk2/D.iop", policy(2));
  ASSERT_FALSE(S.ok());
  EXPECT_EQ(3, F.SyncCalls);
  EXPECT_TRUE(contains(S, "sync of '/disk2/D.iop' failed")) << S.message();
}
