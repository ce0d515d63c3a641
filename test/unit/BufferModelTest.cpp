//===- BufferModelTest.cpp - Stripe buffer vs the reference LRU model -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Thousands of random attach/release/prefetch/write/flush sequences over
// several in-memory arrays. After every operation the buffer's fetch, hit,
// eviction and write-back counts must equal the reference model's; every
// read must see the last bytes written; no stripe is fetched more often than
// the model fetches it; at the end every pin is back to zero and the files
// hold exactly the bytes written. Prefetches run on real I/O threads.
// The second test injects read and write-back failures (all I/O inline, so
// that the model knows which operation meets them): every failed attach
// holds nothing, a victim whose write-back failed keeps its data, and the
// count of pinned frames - the budget of compiled code's runs - stays equal
// to the model's after every operation.
//
//===----------------------------------------------------------------------===//
#include "BufferHarness.h"
#include "ReferenceLRU.h"
#include "TestBackends.h"

#include "iopoly.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

using namespace iopoly;
using namespace iopoly::test;

namespace {

unsigned sequenceCount() {
  if (const char *E = std::getenv("IOPOLY_MODEL_SEQUENCES"))
    return static_cast<unsigned>(std::atoi(E));
  return 2000;
}

struct Held {
  iopoly_array *A;
  size_t Stripe;
  bool Write;
};

/// \p WriteBehind: writes start ahead of evictions (IOPOLY_WRITE_BEHIND),
/// which must change no fetch, hit or eviction, and no byte; the number of
/// writes differs from the reference's (without faults only).
void runSequence(unsigned Seed, bool Faults = false, bool WriteBehind = false) {
  std::mt19937_64 R(Seed);
  auto Pick = [&](size_t N) { return static_cast<size_t>(R() % N); };
  size_t Frames = 2 + Pick(10), Stripe = Pick(2) ? 64 : 128, Disks = 1 + Pick(4);
  BufferHarness H(Frames, Stripe, Disks, /*Prefetch=*/true, Pick(2) ? "hdd" : "none", /*Threads=*/!Faults,
                  /*IoRetries=*/Faults ? 0 : 3, WriteBehind);
  ReferenceLRU Ref(Frames, Disks);
  auto Plan = Faults ? std::make_shared<FaultPlan>() : nullptr;
  // Arms a failure of the next read and/or write-back for one operation.
  auto Arm = [&] {
    if (!Faults)
      return;
    Ref.FailRead = Pick(6) == 0;
    Ref.FailWrite = Pick(6) == 0;
    std::lock_guard<std::mutex> G(Plan->Mu);
    Plan->FailReads = Ref.FailRead;
    Plan->FailWrites = Ref.FailWrite;
  };
  auto Disarm = [&] {
    if (!Faults)
      return;
    Ref.FailRead = Ref.FailWrite = false;
    std::lock_guard<std::mutex> G(Plan->Mu);
    Plan->FailReads = Plan->FailWrites = 0;
  };

  std::vector<std::unique_ptr<iopoly_array>> Arrays;
  std::vector<std::vector<char>> Shadow;
  size_t NArrays = 1 + Pick(3);
  for (size_t I = 0; I < NArrays; ++I) {
    size_t Bytes = Stripe * (1 + Pick(30)) - Pick(Stripe / 2); // partial last stripe
    Arrays.push_back(makeMemArray("a" + std::to_string(I), static_cast<unsigned>(I + 1), Bytes, Stripe, Disks, Plan));
    H.track(*Arrays.back());
    Shadow.emplace_back(Bytes, 0);
  }
  std::vector<Held> Pins;
  StripeBuffer &B = *H.Buffer;

  for (unsigned Op = 0; Op < 200; ++Op) {
    size_t Ai = Pick(Arrays.size());
    iopoly_array *A = Arrays[Ai].get();
    size_t S = Pick(A->Geo.numStripes());
    ReferenceLRU::Key K{A->Id, S};
    unsigned Kind = static_cast<unsigned>(Pick(100));
    SCOPED_TRACE(testing::Message() << "seed " << Seed << " op " << Op << " kind " << Kind << " array " << Ai
                                    << " stripe " << S);
    if (Kind < 45) { // attach
      bool Write = Pick(2), Overwrite = Write && Pick(4) == 0;
      int Mode = (Write ? IOPOLY_WRITE : IOPOLY_READ) | (Overwrite ? IOPOLY_OVERWRITE : 0);
      bool WasResident = Ref.resident(K);
      Arm();
      ReferenceLRU::Outcome Expect = Ref.attachOutcome(K, Write, Overwrite);
      void *P = nullptr;
      Status St = B.attach(A, S, Mode, P);
      Disarm();
      ASSERT_EQ(Expect == ReferenceLRU::Done, St.ok()) << St.message();
      if (Expect == ReferenceLRU::Full)
        ASSERT_TRUE(St.is(ErrorCode::BufferFull)) << St.message();
      if (Expect == ReferenceLRU::IoFailed)
        ASSERT_TRUE(St.is(ErrorCode::IO)) << St.message();
      if (Expect != ReferenceLRU::Done)
        continue;
      Pins.push_back({A, S, Write});
      char *D = static_cast<char *>(P);
      size_t Off = S * Stripe, Len = A->Geo.stripeBytes(S);
      if (!Overwrite || WasResident)
        ASSERT_EQ(0, std::memcmp(D, Shadow[Ai].data() + Off, Len)) << "stale bytes";
      if (Write) {
        // Overwrite writes every byte; a plain write changes a few.
        size_t From = Overwrite ? 0 : Pick(Len), To = Overwrite ? Len : From + 1 + Pick(Len - From);
        for (size_t I = From; I < To; ++I)
          Shadow[Ai][Off + I] = D[I] = static_cast<char>(R());
      }
    } else if (Kind < 80) { // release
      if (Pins.empty())
        continue;
      size_t I = Pick(Pins.size());
      Held P = Pins[I];
      Pins.erase(Pins.begin() + static_cast<long>(I));
      Ref.release({P.A->Id, P.Stripe});
      ASSERT_TRUE(B.release(P.A, P.Stripe).ok());
    } else if (Kind < 97) { // prefetch
      Arm();
      Ref.prefetch(K);
      bool Taken = false;
      Status St = B.prefetch(A, S, Taken);
      Disarm();
      ASSERT_TRUE(St.ok()) << St.message();
    } else { // flush
      Arm();
      size_t Errors = Ref.WriteErrors;
      Ref.flush();
      Status St = B.flush(nullptr);
      Disarm();
      ASSERT_EQ(Errors == Ref.WriteErrors, St.ok()) << St.message();
    }
    B.locked([&] {
      const Counters &C = H.Counters.C;
      EXPECT_EQ(Ref.Fetches, C.Fetches);
      EXPECT_EQ(Ref.Hits, C.Hits);
      EXPECT_EQ(Ref.Evictions, C.Evictions);
      if (!WriteBehind)
        EXPECT_EQ(Ref.Writebacks, C.Writebacks);
      EXPECT_EQ(Ref.PrefetchIssued, C.PrefetchIssued);
      EXPECT_EQ(Ref.PrefetchDropped, C.PrefetchDropped);
      EXPECT_EQ(Ref.ReadErrors, C.ReadErrors);
      EXPECT_EQ(Ref.WriteErrors, C.WriteErrors);
      return 0;
    });
    EXPECT_EQ(Ref.pinnedFrames(), B.pinnedFrames()) << "pinned frames";
    ASSERT_FALSE(testing::Test::HasFailure());
  }
  ASSERT_EQ(Ref.pins(), B.pinCount(nullptr));
  for (const Held &P : Pins)
    ASSERT_TRUE(B.release(P.A, P.Stripe).ok());
  EXPECT_EQ(0u, B.pinCount(nullptr));
  for (auto &A : Arrays)
    ASSERT_TRUE(B.drop(A.get()).ok());
  // Files hold exactly the bytes written; each stripe was read as often as
  // the model fetched it (never twice while resident).
  for (size_t Ai = 0; Ai < Arrays.size(); ++Ai) {
    iopoly_array &A = *Arrays[Ai];
    for (size_t S = 0; S < A.Geo.numStripes(); ++S) {
      MemFile &F = memFile(A, A.Geo.diskOf(S));
      uint64_t Off = A.Geo.fileOffset(S);
      ASSERT_EQ(0, std::memcmp(F.Data.data() + Off, Shadow[Ai].data() + S * Stripe, A.Geo.stripeBytes(S)))
          << "seed " << Seed << " array " << Ai << " stripe " << S;
      auto It = Ref.FetchesOf.find({A.Id, S});
      unsigned Expected = It == Ref.FetchesOf.end() ? 0 : static_cast<unsigned>(It->second);
      unsigned Got = F.ReadsAt.count(Off) ? F.ReadsAt[Off] : 0;
      ASSERT_EQ(Expected, Got) << "seed " << Seed << " array " << Ai << " stripe " << S;
    }
  }
}

} // namespace

TEST(BufferModel, RandomSequencesMatchReferenceLRU) {
  unsigned N = sequenceCount();
  for (unsigned Seed = 1; Seed <= N; ++Seed) {
    runSequence(Seed);
    if (testing::Test::HasFatalFailure() || testing::Test::HasFailure())
      return;
  }
}

TEST(BufferModel, InjectedReadAndWriteBackFailuresMatchReferenceLRU) {
  unsigned N = sequenceCount();
  for (unsigned Seed = 1; Seed <= N; ++Seed) {
    runSequence(Seed, /*Faults=*/true);
    if (testing::Test::HasFatalFailure() || testing::Test::HasFailure())
      return;
  }
}

TEST(BufferModel, WriteBehindChangesNoFetchAndNoByte) {
  unsigned N = sequenceCount();
  for (unsigned Seed = 1; Seed <= N; ++Seed) {
    runSequence(Seed, /*Faults=*/false, /*WriteBehind=*/true);
    if (testing::Test::HasFatalFailure() || testing::Test::HasFailure())
      return;
  }
}
