//===- TraceTest.cpp - IOPOLY_TRACE files: write, read back, reject junk --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What TraceWriter writes, readTrace reads back identically (also past the
// writer's internal flush threshold); damaged files are rejected with a
// reason; and the stripe buffer records attaches (hit or miss, read or
// write), prefetches, evictions and write-backs in program order.
//
//===----------------------------------------------------------------------===//
#include "core/Trace.h"

#include "BufferHarness.h"
#include "TestBackends.h"
#include "TestTemp.h"

#include "iopoly.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

using namespace iopoly;
using namespace iopoly::test;

namespace {

void writeBytes(const std::string &Path, const std::string &Bytes) {
  std::ofstream(Path, std::ios::binary) << Bytes;
}

std::string header(uint32_t Version = 1) {
  std::string H = "IOPTRACE";
  for (int I = 0; I < 4; ++I)
    H += static_cast<char>((Version >> (8 * I)) & 0xff);
  H += std::string(4, '\0');
  return H;
}

} // namespace

TEST(Trace, WrittenEventsReadBackIdentically) {
  ScratchDir Dir("trace");
  ASSERT_TRUE(Dir.ok());
  std::string Path = Dir.file("t.bin");
  std::vector<TraceEvent> Want;
  {
    TraceWriter W;
    ASSERT_TRUE(W.open(Path).ok());
    EXPECT_TRUE(W.active());
    W.defineArray(1, "alpha");
    W.defineArray(3, "gamma.v2");
    // More than the writer buffers before its first write (1 MiB).
    for (uint64_t I = 0; I < 50000; ++I) {
      TraceEvent E;
      E.Kind = static_cast<uint8_t>((I % 4) << 4 | (I & 3));
      E.Disk = static_cast<uint16_t>(I % 65536);
      E.Array = I % 2 ? 1 : 3;
      E.Stripe = I * 0x100000001ULL;
      E.TimeNs = ~0ULL - I;
      W.event(E);
      Want.push_back(E);
    }
    W.close();
    EXPECT_FALSE(W.active());
  }
  TraceContents C;
  Status S = readTrace(Path, C);
  ASSERT_TRUE(S.ok()) << S.message();
  ASSERT_EQ(4u, C.ArrayNames.size());
  EXPECT_EQ("", C.ArrayNames[0]);
  EXPECT_EQ("alpha", C.ArrayNames[1]);
  EXPECT_EQ("", C.ArrayNames[2]);
  EXPECT_EQ("gamma.v2", C.ArrayNames[3]);
  ASSERT_EQ(Want.size(), C.Events.size());
  for (size_t I = 0; I < Want.size(); ++I) {
    const TraceEvent &A = Want[I], &B = C.Events[I];
    ASSERT_TRUE(A.Kind == B.Kind && A.Disk == B.Disk && A.Array == B.Array && A.Stripe == B.Stripe &&
                A.TimeNs == B.TimeNs)
        << "event " << I;
  }
}

TEST(Trace, EmptyTraceHasOnlyTheHeader) {
  ScratchDir Dir("trace");
  std::string Path = Dir.file("empty.bin");
  {
    TraceWriter W;
    ASSERT_TRUE(W.open(Path).ok());
  } // the destructor closes
  TraceContents C;
  ASSERT_TRUE(readTrace(Path, C).ok());
  EXPECT_TRUE(C.Events.empty());
  EXPECT_TRUE(C.ArrayNames.empty());
  std::ifstream F(Path, std::ios::binary | std::ios::ate);
  EXPECT_EQ(16, static_cast<long>(F.tellg()));
}

TEST(Trace, UncreatableFileNamesTheVariableAndPath) {
  ScratchDir Dir("trace");
  TraceWriter W;
  Status S = W.open(Dir.file("no/such/dir/t.bin"));
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("IOPOLY_TRACE=" + Dir.file("no/such/dir/t.bin"))) << S.message();
  EXPECT_FALSE(W.active());
  W.event(TraceEvent{}); // inactive: ignored, no crash
}

TEST(Trace, DamagedFilesAreRejectedWithAReason) {
  ScratchDir Dir("trace");
  TraceContents C;
  Status S = readTrace(Dir.file("missing.bin"), C);
  EXPECT_NE(std::string::npos, S.message().find("cannot open trace")) << S.message();

  struct Case {
    std::string Bytes, Reason;
  } Cases[] = {
      {"", "bad magic"},
      {"IOPTRAC", "bad magic"},
      {"NOTTRACE" + std::string(8, '\0'), "bad magic"},
      {header(2), "version 2"},
      {header() + "A", "truncated"},
      {header() + std::string("A\0\x05\0\x01\0\0\0ab", 10), "truncated"},
      {header() + std::string("E\0\0\0", 4), "truncated"},
      {header() + "Z", "unknown record type 0x5a at byte 16"},
  };
  for (const Case &K : Cases) {
    std::string Path = Dir.file("bad.bin");
    writeBytes(Path, K.Bytes);
    S = readTrace(Path, C);
    ASSERT_FALSE(S.ok()) << "accepted " << K.Reason;
    EXPECT_NE(std::string::npos, S.message().find(K.Reason)) << S.message();
  }
}

TEST(Trace, StripeBufferRecordsAccessesInProgramOrder) {
  ScratchDir Dir("trace");
  std::string Path = Dir.file("buf.bin");
  {
    // Two frames, no threads: everything happens in call order.
    BufferHarness H(2, 64, 2, /*Prefetch=*/true, "none", /*Threads=*/false);
    ASSERT_TRUE(H.Trace.open(Path).ok());
    auto A = makeMemArray("A", 7, 64 * 4, 64, 2);
    H.track(*A);
    H.Trace.defineArray(A->Id, A->Name);
    StripeBuffer &B = *H.Buffer;
    void *P;
    bool Taken;
    ASSERT_TRUE(B.attach(A.get(), 0, IOPOLY_READ, P).ok());  // miss
    ASSERT_TRUE(B.release(A.get(), 0).ok());
    ASSERT_TRUE(B.attach(A.get(), 0, IOPOLY_WRITE, P).ok()); // hit, write
    ASSERT_TRUE(B.release(A.get(), 0).ok());
    ASSERT_TRUE(B.prefetch(A.get(), 1, Taken).ok());         // prefetch
    ASSERT_TRUE(B.attach(A.get(), 3, IOPOLY_READ, P).ok());  // evicts dirty 0
    ASSERT_TRUE(B.release(A.get(), 3).ok());
    ASSERT_TRUE(B.drop(A.get()).ok());
    H.Trace.close();
  }
  TraceContents C;
  ASSERT_TRUE(readTrace(Path, C).ok());
  ASSERT_GT(C.ArrayNames.size(), 7u);
  EXPECT_EQ("A", C.ArrayNames[7]);
  struct Want {
    uint8_t Kind;
    uint64_t Stripe;
  } Expected[] = {
      {TraceAttach, 0},
      {TraceAttach | TraceHit | TraceWrite, 0},
      {TracePrefetch, 1},
      {TraceEvict, 0},
      {TraceWriteback | TraceWrite, 0},
      {TraceAttach, 3},
  };
  ASSERT_EQ(std::size(Expected), C.Events.size());
  uint64_t LastTime = 0;
  for (size_t I = 0; I < C.Events.size(); ++I) {
    const TraceEvent &E = C.Events[I];
    EXPECT_EQ(Expected[I].Kind, E.Kind) << "event " << I;
    EXPECT_EQ(Expected[I].Stripe, E.Stripe) << "event " << I;
    EXPECT_EQ(7u, E.Array);
    EXPECT_EQ(E.Stripe % 2, E.Disk) << "stripe b is on disk b mod T";
    EXPECT_GE(E.TimeNs, LastTime) << "times do not go backwards";
    LastTime = E.TimeNs;
  }
}
