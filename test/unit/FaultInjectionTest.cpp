//===- FaultInjectionTest.cpp - I/O faults at every operation k -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A small scenario (commit data, then rewrite, reread, evict and flush it)
// runs once per fault kind and per k, with the k-th backend operation after
// the commit failing: transiently (EINTR, a short transfer, one EIO) or
// persistently (EIO or ENOSPC on every write from the k-th operation on).
// After every run:
//  - transient faults are invisible: no operation fails;
//  - a persistent fault reaches the caller: some attach or flush fails, with
//    a message naming the array and the file;
//  - every attach sees the last bytes written, even after a failed
//    write-back; the files only ever hold versions that were written (the
//    committed data reads back intact);
//  - once the fault clears, a flush succeeds and the files hold exactly the
//    last bytes written: no dirty stripe was marked clean by a failed write.
// Everything runs inline (no I/O threads), so operation k is the same in
// every run.
//
//===----------------------------------------------------------------------===//
#include "BufferHarness.h"
#include "core/Seeker.h"
#include "TestBackends.h"

#include "iopoly.h"

#include <gtest/gtest.h>

#include <set>

using namespace iopoly;
using namespace iopoly::test;

namespace {

constexpr size_t Stripe = 64, NumStripes = 8, Frames = 3, Disks = 2;
constexpr size_t Bytes = NumStripes * Stripe - 10; // partial last stripe

const char *kindName(Fault K) {
  switch (K) {
  case Fault::Eintr: return "EINTR";
  case Fault::Short: return "short transfer";
  case Fault::EioOnce: return "one EIO";
  case Fault::EioForever: return "EIO from k on";
  case Fault::EnospcForever: return "ENOSPC from k on";
  default: return "none";
  }
}
bool persistent(Fault K) { return K == Fault::EioForever || K == Fault::EnospcForever; }

struct Outcome {
  unsigned long long Ops = 0; ///< backend operations after the commit
  bool Tripped = false;
  std::vector<std::string> Errors;
};

class Scenario {
public:
  Scenario() : H(Frames, Stripe, Disks, /*Prefetch=*/true, "none", /*Threads=*/false, /*IoRetries=*/2) {
    Plan = std::make_shared<FaultPlan>();
    A = makeMemArray("F", 1, Bytes, Stripe, Disks, Plan);
    H.track(*A);
    Shadow.assign(Bytes, 0);
    Versions.resize(NumStripes);
  }

  /// Runs the scenario with \p Kind at operation \p K after the commit
  /// (K = 0: no fault), checking the invariants that hold while it runs.
  Outcome run(Fault Kind, unsigned long long K) {
    commit();
    if (testing::Test::HasFatalFailure())
      return {};
    unsigned long long Base;
    {
      std::lock_guard<std::mutex> G(Plan->Mu);
      Base = Plan->Ops;
      Plan->Kind = K ? Kind : Fault::None;
      Plan->FailAt = K ? Base + K : ~0ULL;
    }
    Outcome O;
    StripeBuffer &B = *H.Buffer;
    auto Note = [&](const Status &S, const char *What) {
      if (S.ok())
        return;
      O.Errors.push_back(S.message());
      EXPECT_NE(std::string::npos, S.message().find("array 'F'")) << What << ": " << S.message();
      EXPECT_NE(std::string::npos, S.message().find("'mem:F/disk")) << What << ": " << S.message();
    };
    // Rewrite parts of every stripe twice over, read some back, flush in
    // the middle and at the end. Three frames for eight stripes: most
    // attaches evict a dirty stripe.
    for (unsigned Round = 0; Round < 2; ++Round) {
      for (size_t S = 0; S < NumStripes; ++S) {
        size_t Sx = Round ? NumStripes - 1 - S : S;
        void *P = nullptr;
        Status St = B.attach(A.get(), Sx, IOPOLY_WRITE, P);
        Note(St, "attach for writing");
        if (St.ok()) {
          expectCurrent(Sx, P, "attach for writing");
          char *C = static_cast<char *>(P);
          size_t From = (Round * 13 + Sx * 5) % A->Geo.stripeBytes(Sx);
          for (size_t I = From; I < A->Geo.stripeBytes(Sx); I += 3)
            C[I] = Shadow[Sx * Stripe + I] = static_cast<char>(0x80 + Round * 16 + Sx + I);
          Versions[Sx].insert(current(Sx));
          EXPECT_TRUE(B.release(A.get(), Sx).ok());
        }
        if (S % 3 == 2) {
          size_t R = (Sx + 4) % NumStripes;
          St = B.attach(A.get(), R, IOPOLY_READ, P);
          Note(St, "attach for reading");
          if (St.ok()) {
            expectCurrent(R, P, "attach for reading");
            EXPECT_TRUE(B.release(A.get(), R).ok());
          }
        }
        if (S == NumStripes / 2)
          Note(B.flush(A.get()), "flush");
      }
      bool Taken;
      Note(B.prefetch(A.get(), Round, Taken), "prefetch");
      // Last: a flush with dirty stripes, so that a persistent fault that
      // fired at any earlier operation meets a write.
      Note(B.flush(A.get()), "flush");
    }
    EXPECT_EQ(0u, B.pinCount(nullptr));
    expectFilesHoldWrittenVersions();
    {
      std::lock_guard<std::mutex> G(Plan->Mu);
      O.Ops = Plan->Ops - Base;
      O.Tripped = Plan->Tripped;
      Plan->Kind = Fault::None; // the fault clears
    }
    // Everything still dirty must now reach the files.
    Status F = B.flush(A.get());
    EXPECT_TRUE(F.ok()) << "flush after the fault cleared: " << F.message();
    Status D = B.drop(A.get());
    EXPECT_TRUE(D.ok()) << "close after the fault cleared: " << D.message();
    for (size_t S = 0; S < NumStripes; ++S)
      EXPECT_EQ(current(S), onDisk(S)) << "stripe " << S << " lost bytes";
    return O;
  }

private:
  /// Writes every stripe (version 1) and flushes, with no fault.
  void commit() {
    StripeBuffer &B = *H.Buffer;
    for (size_t S = 0; S < NumStripes; ++S) {
      void *P = nullptr;
      ASSERT_TRUE(B.attach(A.get(), S, IOPOLY_WRITE | IOPOLY_OVERWRITE, P).ok());
      for (size_t I = 0; I < A->Geo.stripeBytes(S); ++I)
        static_cast<char *>(P)[I] = Shadow[S * Stripe + I] = static_cast<char>(S * 17 + I);
      Versions[S].insert(current(S));
      ASSERT_TRUE(B.release(A.get(), S).ok());
    }
    ASSERT_TRUE(B.flush(A.get()).ok());
    for (size_t S = 0; S < NumStripes; ++S)
      ASSERT_EQ(current(S), onDisk(S)) << "committed stripe " << S;
  }

  std::string current(size_t S) const {
    return std::string(Shadow.data() + S * Stripe, A->Geo.stripeBytes(S));
  }
  std::string onDisk(size_t S) {
    MemFile &F = memFile(*A, A->Geo.diskOf(S));
    std::lock_guard<std::mutex> G(F.Mu);
    return std::string(F.Data.data() + A->Geo.fileOffset(S), A->Geo.stripeBytes(S));
  }
  void expectCurrent(size_t S, const void *P, const char *What) {
    EXPECT_EQ(current(S), std::string(static_cast<const char *>(P), A->Geo.stripeBytes(S)))
        << What << " of stripe " << S << " saw stale bytes";
  }
  /// No file holds a torn or invented stripe: only versions that were
  /// written, the committed one included.
  void expectFilesHoldWrittenVersions() {
    for (size_t S = 0; S < NumStripes; ++S)
      EXPECT_TRUE(Versions[S].count(onDisk(S))) << "stripe " << S << " on disk is no version ever written";
  }

  BufferHarness H;
  std::shared_ptr<FaultPlan> Plan;
  std::unique_ptr<iopoly_array> A;
  std::vector<char> Shadow;
  std::vector<std::set<std::string>> Versions;
};

unsigned long long opsWithoutFaults() {
  Scenario S;
  return S.run(Fault::None, 0).Ops;
}

void runEveryK(Fault Kind) {
  unsigned long long Total = opsWithoutFaults();
  ASSERT_GT(Total, 20u) << "the scenario does I/O";
  for (unsigned long long K = 1; K <= Total + 1; ++K) {
    SCOPED_TRACE(testing::Message() << kindName(Kind) << " at operation " << K << " of " << Total);
    Scenario S;
    Outcome O = S.run(Kind, K);
    if (testing::Test::HasFatalFailure())
      return;
    EXPECT_EQ(K <= Total, O.Tripped) << "the fault fired";
    if (persistent(Kind)) {
      if (O.Tripped)
        EXPECT_FALSE(O.Errors.empty()) << "a persistent fault never reached the caller";
    } else {
      EXPECT_TRUE(O.Errors.empty()) << "a transient fault reached the caller: " << O.Errors.front();
    }
    if (testing::Test::HasFailure())
      return; // one k is enough to read
  }
}

} // namespace

TEST(FaultInjection, InterruptedCallsAreInvisibleAtEveryK) { runEveryK(Fault::Eintr); }
TEST(FaultInjection, ShortTransfersAreInvisibleAtEveryK) { runEveryK(Fault::Short); }
TEST(FaultInjection, OneEioIsRetriedAtEveryK) { runEveryK(Fault::EioOnce); }
TEST(FaultInjection, PersistentEioReachesTheCallerAndLosesNothingAtEveryK) { runEveryK(Fault::EioForever); }
TEST(FaultInjection, NoSpaceReachesTheCallerAndLosesNothingAtEveryK) { runEveryK(Fault::EnospcForever); }

TEST(FaultInjection, ReadErrorReachesTheAttachAndTheStripeStaysUnloaded) {
  // No EIO retries: the first read fails for good.
  BufferHarness H(2, Stripe, Disks, true, "none", false, /*IoRetries=*/0);
  auto Plan = std::make_shared<FaultPlan>();
  auto A = makeMemArray("F", 1, Bytes, Stripe, Disks, Plan);
  H.track(*A);
  memFile(*A, 1).Data[A->Geo.fileOffset(3)] = 0x3c;
  Plan->Kind = Fault::EioOnce;
  Plan->FailAt = 1;
  void *P = nullptr;
  Status S = H.Buffer->attach(A.get(), 3, IOPOLY_READ, P);
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("cannot read block 3 of array 'F'")) << S.message();
  EXPECT_NE(std::string::npos, S.message().find("'mem:F/disk1'")) << S.message();
  EXPECT_EQ(0u, H.Buffer->pinCount(nullptr)) << "a failed attach holds nothing";
  ASSERT_TRUE(H.Buffer->attach(A.get(), 3, IOPOLY_READ, P).ok()) << "the next attach reads again";
  EXPECT_EQ(0x3c, static_cast<char *>(P)[0]);
  ASSERT_TRUE(H.Buffer->release(A.get(), 3).ok());
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
  EXPECT_EQ(1u, H.Counters.C.ReadErrors);
}

TEST(FaultInjection, FailedWriteBackUnderAnAttachAheadLeavesTheOldStripeClosable) {
  // Attach-ahead for writing (the seeker's path) has to evict a dirty
  // stripe whose write-back fails: the old stripe keeps its data, the new
  // one is not brought in, and once the disk recovers the array closes.
  BufferHarness H(2, Stripe, Disks, true, "none", /*Threads=*/false, 0);
  auto Plan = std::make_shared<FaultPlan>();
  Plan->WritesOnly = true;
  auto A = makeMemArray("F", 1, Bytes, Stripe, Disks, Plan);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  for (size_t S = 0; S < 2; ++S) {
    void *P = nullptr;
    ASSERT_TRUE(B.attach(A.get(), S, IOPOLY_WRITE, P).ok());
    std::memset(P, static_cast<int>(0x10 + S), Stripe);
    ASSERT_TRUE(B.release(A.get(), S).ok());
  }
  {
    std::lock_guard<std::mutex> G(Plan->Mu);
    Plan->Kind = Fault::EnospcForever;
    Plan->FailAt = Plan->Ops + 1;
  }
  bool Pinned = false;
  ASSERT_TRUE(B.pinAhead(A.get(), 5, IOPOLY_READ | IOPOLY_WRITE, Pinned).ok());
  void *P = nullptr;
  Status W = B.waitReady(A.get(), 5, P);
  ASSERT_FALSE(W.ok()) << "block 5 cannot have arrived";
  EXPECT_NE(std::string::npos, W.message().find("block 5 of array 'F' was not brought in")) << W.message();
  EXPECT_NE(std::string::npos, W.message().find(std::strerror(ENOSPC))) << W.message();
  EXPECT_EQ(0u, B.pinCount(nullptr));
  Status Busy = B.drop(A.get());
  EXPECT_FALSE(Busy.ok()) << "unwritten data: the close must be refused while the disk is full";
  {
    std::lock_guard<std::mutex> G(Plan->Mu);
    Plan->Kind = Fault::None;
  }
  Status D = B.drop(A.get());
  ASSERT_TRUE(D.ok()) << D.message();
  for (size_t S = 0; S < 2; ++S)
    EXPECT_EQ(0x10 + S, static_cast<size_t>(memFile(*A, S).Data[A->Geo.fileOffset(S)]));
}

TEST(FaultInjection, FlushErrorNamesArrayAndFileAndKeepsTheStripeDirty) {
  BufferHarness H(4, Stripe, Disks, true, "none", false, 1);
  auto Plan = std::make_shared<FaultPlan>();
  Plan->WritesOnly = true;
  auto A = makeMemArray("F", 1, Bytes, Stripe, Disks, Plan);
  H.track(*A);
  void *P = nullptr;
  ASSERT_TRUE(H.Buffer->attach(A.get(), 1, IOPOLY_WRITE, P).ok());
  std::memset(P, 0x42, Stripe);
  ASSERT_TRUE(H.Buffer->release(A.get(), 1).ok());
  Plan->Kind = Fault::EioForever;
  Plan->FailAt = 1;
  Status S = H.Buffer->flush(nullptr);
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("block 1 of array 'F'")) << S.message();
  EXPECT_NE(std::string::npos, S.message().find("'mem:F/disk1'")) << S.message();
  EXPECT_NE(std::string::npos, S.message().find("after 1 retries")) << S.message();
  EXPECT_EQ(0u, H.Counters.C.Writebacks) << "a failed write is not counted as a write-back";
  EXPECT_EQ(1u, H.Counters.C.WriteErrors);
  Plan->Kind = Fault::None;
  ASSERT_TRUE(H.Buffer->flush(nullptr).ok());
  EXPECT_EQ(0x42, memFile(*A, 1).Data[A->Geo.fileOffset(1)]);
  EXPECT_EQ(1u, H.Counters.C.Writebacks);
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
}
