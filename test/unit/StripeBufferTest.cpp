//===- StripeBufferTest.cpp - Comanche pinning, errors and write-back -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Single behaviours of the stripe buffer that the random model test does not
// pin down by name: an attached block is never evicted; a buffer full of
// attached blocks is an error, not a wait; release without attach is an
// error; attaches nest; closing with attached blocks is refused; OVERWRITE
// skips the read; a dirty stripe is written back before it is read again;
// a prefetch is used by the next attach; a stripe written while a flush
// is copying it stays dirty until the new bytes are on disk; write-behind
// writes the next victims ahead, once, and loses nothing when a stripe
// changes again or its write fails.
//
//===----------------------------------------------------------------------===//
#include "BufferHarness.h"
#include "TestBackends.h"

#include "iopoly.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <thread>

using namespace iopoly;
using namespace iopoly::test;

namespace {

constexpr size_t Stripe = 64;

const char *onDisk(iopoly_array &A, size_t S) {
  return memFile(A, A.Geo.diskOf(S)).Data.data() + A.Geo.fileOffset(S);
}
unsigned readsOf(iopoly_array &A, size_t S) {
  return memFile(A, A.Geo.diskOf(S)).ReadsAt[A.Geo.fileOffset(S)];
}
unsigned writesOf(iopoly_array &A, size_t S) {
  return memFile(A, A.Geo.diskOf(S)).WritesAt[A.Geo.fileOffset(S)];
}

bool contains(const Status &S, const std::string &Part) { return S.message().find(Part) != std::string::npos; }

} // namespace

TEST(StripeBuffer, AttachedBlockIsNeverEvicted) {
  BufferHarness H(3, Stripe, 2);
  auto A = makeMemArray("P", 1, 30 * Stripe, Stripe, 2);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  void *P0 = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 0, IOPOLY_WRITE, P0).ok());
  std::memset(P0, 0x5a, Stripe);
  // However long ago block 0 was used, the other 29 blocks cycle through
  // the two remaining frames around it, with prefetches in between.
  for (int Round = 0; Round < 3; ++Round)
    for (size_t S = 1; S < 30; ++S) {
      void *P = nullptr;
      bool Taken;
      ASSERT_TRUE(B.prefetch(A.get(), (S + 1) % 30, Taken).ok());
      ASSERT_TRUE(B.attach(A.get(), S, IOPOLY_READ, P).ok()) << "block " << S;
      ASSERT_NE(P0, P);
      ASSERT_TRUE(B.release(A.get(), S).ok());
    }
  for (size_t I = 0; I < Stripe; ++I)
    ASSERT_EQ(0x5a, static_cast<unsigned char>(static_cast<char *>(P0)[I]));
  EXPECT_EQ(1u, readsOf(*A, 0)) << "block 0 was fetched once and kept";
  EXPECT_EQ(0u, writesOf(*A, 0)) << "and never written back while attached";
  ASSERT_TRUE(B.release(A.get(), 0).ok());
  ASSERT_TRUE(B.drop(A.get()).ok());
  EXPECT_EQ(0x5a, static_cast<unsigned char>(onDisk(*A, 0)[Stripe - 1]));
}

TEST(StripeBuffer, FullBufferIsAnErrorNotAWait) {
  BufferHarness H(2, Stripe, 1);
  auto A = makeMemArray("Full", 1, 8 * Stripe, Stripe, 1);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  void *P = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 0, IOPOLY_READ, P).ok());
  ASSERT_TRUE(B.attach(A.get(), 1, IOPOLY_READ, P).ok());
  Status S = B.attach(A.get(), 2, IOPOLY_READ, P);
  ASSERT_FALSE(S.ok());
  EXPECT_TRUE(contains(S, "stripe buffer full: cannot bring in block 2 of array 'Full' because all 2 frames are "
                          "attached ('Full' 2)"))
      << S.message();
  EXPECT_TRUE(contains(S, "IOPOLY_BUFFER")) << S.message();
  // A resident block can still be attached again.
  ASSERT_TRUE(B.attach(A.get(), 1, IOPOLY_READ, P).ok());
  // Hints and attach-ahead give up instead of failing or waiting.
  bool Taken = true, Pinned = true;
  ASSERT_TRUE(B.prefetch(A.get(), 3, Taken).ok());
  EXPECT_FALSE(Taken);
  ASSERT_TRUE(B.pinAhead(A.get(), 3, IOPOLY_READ, Pinned).ok());
  EXPECT_FALSE(Pinned);
  EXPECT_EQ(3u, B.pinCount(A.get()));
  ASSERT_TRUE(B.release(A.get(), 0).ok());
  EXPECT_TRUE(B.attach(A.get(), 2, IOPOLY_READ, P).ok()) << "a released frame is reused";
  for (size_t S2 : {1, 1, 2})
    ASSERT_TRUE(B.release(A.get(), S2).ok());
  EXPECT_EQ(0u, B.pinCount(nullptr));
  ASSERT_TRUE(B.drop(A.get()).ok());
}

TEST(StripeBuffer, ReleaseWithoutAttachIsAnError) {
  BufferHarness H(4, Stripe, 2);
  auto A = makeMemArray("R", 1, 8 * Stripe, Stripe, 2);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  Status S = B.release(A.get(), 5);
  ASSERT_FALSE(S.ok());
  EXPECT_TRUE(contains(S, "block 5 of array 'R' is not attached (release without attach)")) << S.message();
  void *P = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 5, IOPOLY_READ, P).ok());
  ASSERT_TRUE(B.release(A.get(), 5).ok());
  EXPECT_FALSE(B.release(A.get(), 5).ok()) << "resident but no longer attached";
  EXPECT_EQ(0u, B.pinCount(nullptr));
}

TEST(StripeBuffer, AttachesNestAndNeedAsManyReleases) {
  BufferHarness H(1, Stripe, 1);
  auto A = makeMemArray("N", 1, 4 * Stripe, Stripe, 1);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  void *P1 = nullptr, *P2 = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 2, IOPOLY_READ, P1).ok());
  ASSERT_TRUE(B.attach(A.get(), 2, IOPOLY_WRITE, P2).ok());
  EXPECT_EQ(P1, P2);
  ASSERT_TRUE(B.release(A.get(), 2).ok());
  EXPECT_EQ(1u, B.pinCount(A.get()));
  void *Q = nullptr;
  EXPECT_FALSE(B.attach(A.get(), 3, IOPOLY_READ, Q).ok()) << "still pinned once";
  ASSERT_TRUE(B.release(A.get(), 2).ok());
  EXPECT_TRUE(B.attach(A.get(), 3, IOPOLY_READ, Q).ok());
  ASSERT_TRUE(B.release(A.get(), 3).ok());
}

TEST(StripeBuffer, DropIsRefusedWhileBlocksAreAttached) {
  BufferHarness H(4, Stripe, 2);
  auto A = makeMemArray("Busy", 1, 8 * Stripe, Stripe, 2);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  void *P = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 3, IOPOLY_WRITE, P).ok());
  std::memset(P, 7, Stripe);
  Status S = B.drop(A.get());
  ASSERT_FALSE(S.ok());
  EXPECT_TRUE(contains(S, "array 'Busy' still has 1 attached block(s)")) << S.message();
  EXPECT_EQ(0u, writesOf(*A, 3)) << "a refused close writes nothing";
  ASSERT_TRUE(B.release(A.get(), 3).ok());
  ASSERT_TRUE(B.drop(A.get()).ok());
  EXPECT_EQ(7, onDisk(*A, 3)[0]);
  EXPECT_EQ(1u, writesOf(*A, 3));
}

TEST(StripeBuffer, OverwriteSkipsTheReadAndStartsFromZeros) {
  BufferHarness H(2, Stripe, 1);
  auto A = makeMemArray("O", 1, 4 * Stripe, Stripe, 1);
  H.track(*A);
  std::memset(memFile(*A, 0).Data.data() + A->Geo.fileOffset(1), 0x33, Stripe);
  void *P = nullptr;
  ASSERT_TRUE(H.Buffer->attach(A.get(), 1, IOPOLY_WRITE | IOPOLY_OVERWRITE, P).ok());
  EXPECT_EQ(0u, readsOf(*A, 1));
  for (size_t I = 0; I < Stripe; ++I)
    ASSERT_EQ(0, static_cast<char *>(P)[I]);
  std::memset(P, 0x44, Stripe);
  ASSERT_TRUE(H.Buffer->release(A.get(), 1).ok());
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
  EXPECT_EQ(0x44, onDisk(*A, 1)[0]);
  EXPECT_EQ(1u, H.Counters.C.Overwrites);
  EXPECT_EQ(0u, H.Counters.C.Fetches);
}

TEST(StripeBuffer, DirtyStripeIsWrittenBackBeforeItIsReadAgain) {
  BufferHarness H(1, Stripe, 2);
  auto A = makeMemArray("D", 1, 4 * Stripe, Stripe, 2);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  void *P = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 0, IOPOLY_WRITE, P).ok());
  std::memset(P, 0x61, Stripe);
  ASSERT_TRUE(B.release(A.get(), 0).ok());
  ASSERT_TRUE(B.attach(A.get(), 1, IOPOLY_READ, P).ok()); // evicts dirty 0
  EXPECT_EQ(1u, writesOf(*A, 0));
  EXPECT_EQ(0x61, onDisk(*A, 0)[0]);
  ASSERT_TRUE(B.release(A.get(), 1).ok());
  ASSERT_TRUE(B.attach(A.get(), 0, IOPOLY_READ, P).ok());
  EXPECT_EQ(0x61, static_cast<char *>(P)[Stripe - 1]);
  ASSERT_TRUE(B.release(A.get(), 0).ok());
  ASSERT_TRUE(B.drop(A.get()).ok());
  EXPECT_EQ(1u, writesOf(*A, 0)) << "clean after its write-back: not written again";
  EXPECT_EQ(0u, writesOf(*A, 1)) << "never dirty: never written";
  EXPECT_EQ(2u, H.Counters.C.Evictions);
  EXPECT_EQ(1u, H.Counters.C.Writebacks);
}

TEST(StripeBuffer, PrefetchIsUsedByTheNextAttach) {
  BufferHarness H(4, Stripe, 2);
  auto A = makeMemArray("H", 1, 8 * Stripe, Stripe, 2);
  H.track(*A);
  memFile(*A, 1).Data[A->Geo.fileOffset(3)] = 0x7e;
  bool Taken = false;
  ASSERT_TRUE(H.Buffer->prefetch(A.get(), 3, Taken).ok());
  EXPECT_TRUE(Taken);
  ASSERT_TRUE(H.Buffer->prefetch(A.get(), 3, Taken).ok());
  EXPECT_TRUE(Taken) << "redundant hints are taken";
  void *P = nullptr;
  ASSERT_TRUE(H.Buffer->attach(A.get(), 3, IOPOLY_READ, P).ok());
  EXPECT_EQ(0x7e, static_cast<char *>(P)[0]) << "the attach waited for the background fetch";
  ASSERT_TRUE(H.Buffer->release(A.get(), 3).ok());
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
  const Counters &C = H.Counters.C;
  EXPECT_EQ(1u, C.Fetches);
  EXPECT_EQ(1u, C.Hits);
  EXPECT_EQ(1u, C.PrefetchIssued);
  EXPECT_EQ(1u, C.PrefetchRedundant);
  EXPECT_EQ(1u, C.PrefetchUsed);
  EXPECT_EQ(1u, readsOf(*A, 3));
}

TEST(StripeBuffer, EachArrayCountsItsHintsUsedAndWasted) {
  // Restructured code stops hinting an array whose hints are evicted unused
  // (lowered/TileWalk.cpp): the outcome is counted per array.
  BufferHarness H(2, Stripe, 2);
  auto A = makeMemArray("HA", 1, 8 * Stripe, Stripe, 2);
  auto B = makeMemArray("HB", 2, 8 * Stripe, Stripe, 2);
  H.track(*A);
  H.track(*B);
  bool Taken = false;
  void *P = nullptr;
  ASSERT_TRUE(H.Buffer->prefetch(A.get(), 1, Taken).ok());
  ASSERT_TRUE(H.Buffer->prefetch(B.get(), 1, Taken).ok());
  ASSERT_TRUE(H.Buffer->attach(B.get(), 1, IOPOLY_READ, P).ok()); // B's hint used
  ASSERT_TRUE(H.Buffer->release(B.get(), 1).ok());
  ASSERT_TRUE(H.Buffer->attach(B.get(), 2, IOPOLY_READ, P).ok()); // evicts A's unused hint
  ASSERT_TRUE(H.Buffer->release(B.get(), 2).ok());
  EXPECT_EQ(0u, A->HintsUsed.load());
  EXPECT_EQ(1u, A->HintsWasted.load());
  EXPECT_EQ(1u, B->HintsUsed.load());
  EXPECT_EQ(0u, B->HintsWasted.load());
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
  ASSERT_TRUE(H.Buffer->drop(B.get()).ok());
}

namespace {

/// A MemFile whose next write, once armed, stops after copying the bytes
/// until the test lets it finish.
class GateFile : public MemFile {
public:
  ssize_t writeAt(const void *Buf, size_t N, uint64_t Off) override {
    ssize_t R = MemFile::writeAt(Buf, N, Off);
    std::unique_lock<std::mutex> L(GateMu);
    if (Armed) {
      Armed = false;
      Copied = true;
      GateCV.notify_all();
      GateCV.wait(L, [&] { return Open; });
    }
    return R;
  }
  void arm() {
    std::lock_guard<std::mutex> L(GateMu);
    Armed = true;
    Copied = Open = false;
  }
  void waitCopied() {
    std::unique_lock<std::mutex> L(GateMu);
    GateCV.wait(L, [&] { return Copied; });
  }
  void open() {
    std::lock_guard<std::mutex> L(GateMu);
    Open = true;
    GateCV.notify_all();
  }

private:
  std::mutex GateMu;
  std::condition_variable GateCV;
  bool Armed = false, Copied = false, Open = false;
};

} // namespace

TEST(StripeBuffer, StripeWrittenDuringItsFlushStaysDirty) {
  BufferHarness H(4, Stripe, 1);
  auto A = makeMemArray("G", 1, 4 * Stripe, Stripe, 1);
  auto Gate = std::make_unique<GateFile>();
  Gate->Data.resize(A->Geo.expectedFileSize(0), 0);
  GateFile &G = *Gate;
  A->Files[0] = std::move(Gate);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;

  void *P = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 0, IOPOLY_WRITE, P).ok());
  std::memset(P, 1, Stripe);
  G.arm();
  Status FlushStatus;
  std::thread Flusher([&] { FlushStatus = B.flush(A.get()); });
  G.waitCopied();
  // The flush has copied the old bytes; the program, which still holds the
  // block for writing, changes it and lets go.
  std::memset(P, 2, Stripe);
  ASSERT_TRUE(B.release(A.get(), 0).ok());
  G.open();
  Flusher.join();
  ASSERT_TRUE(FlushStatus.ok()) << FlushStatus.message();
  EXPECT_EQ(1, onDisk(*A, 0)[0]) << "the first flush wrote the bytes it copied";
  // The new bytes have not reached the disk: the stripe must still be dirty.
  ASSERT_TRUE(B.flush(A.get()).ok());
  EXPECT_EQ(2, onDisk(*A, 0)[0]) << "bytes written during a flush were lost";
  ASSERT_TRUE(B.drop(A.get()).ok());
  EXPECT_EQ(2, onDisk(*A, 0)[Stripe - 1]);
}

namespace {
/// Stripe 0 read, stripes 1 to 3 written (bytes 0x41 to 0x43) and all
/// released: LRU order 0, 1, 2, 3 in a buffer of four frames.
void fillForWriteBehind(StripeBuffer &B, iopoly_array *A) {
  void *P = nullptr;
  ASSERT_TRUE(B.attach(A, 0, IOPOLY_READ, P).ok());
  ASSERT_TRUE(B.release(A, 0).ok());
  for (size_t S = 1; S <= 3; ++S) {
    ASSERT_TRUE(B.attach(A, S, IOPOLY_WRITE, P).ok());
    std::memset(P, static_cast<int>(0x40 + S), Stripe);
    ASSERT_TRUE(B.release(A, S).ok());
  }
}
} // namespace

TEST(StripeBuffer, WriteBehindWritesTheNextVictimsAheadOnce) {
  BufferHarness H(4, Stripe, 2, /*Prefetch=*/true, "hdd", /*Threads=*/true, 3, /*WriteBehind=*/true);
  auto A = makeMemArray("W", 1, 8 * Stripe, Stripe, 2);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  fillForWriteBehind(B, A.get());
  void *P = nullptr;
  // Evicts clean 0 and starts writing 1 and 2, the next two victims.
  ASSERT_TRUE(B.attach(A.get(), 4, IOPOLY_READ, P).ok());
  EXPECT_EQ(2u, H.Counters.C.WriteBehind);
  // Evicts 1, already on disk (after its write lands), and starts 3.
  ASSERT_TRUE(B.attach(A.get(), 5, IOPOLY_READ, P).ok());
  EXPECT_EQ(1u, writesOf(*A, 1)) << "written ahead, not again at its eviction";
  EXPECT_EQ(0x41, onDisk(*A, 1)[Stripe - 1]);
  ASSERT_TRUE(B.release(A.get(), 4).ok());
  ASSERT_TRUE(B.release(A.get(), 5).ok());
  ASSERT_TRUE(B.drop(A.get()).ok());
  for (size_t S = 1; S <= 3; ++S) {
    EXPECT_EQ(1u, writesOf(*A, S)) << "stripe " << S;
    EXPECT_EQ(static_cast<char>(0x40 + S), onDisk(*A, S)[0]) << "stripe " << S;
  }
  const Counters &C = H.Counters.C;
  EXPECT_EQ(3u, C.Writebacks);
  EXPECT_EQ(3u, C.WriteBehind);
  EXPECT_EQ(0u, C.WriteBehindAgain);
}

TEST(StripeBuffer, StripeChangedAfterItsWriteBehindIsWrittenAgain) {
  BufferHarness H(4, Stripe, 2, /*Prefetch=*/true, "hdd", /*Threads=*/true, 3, /*WriteBehind=*/true);
  auto A = makeMemArray("V", 1, 8 * Stripe, Stripe, 2);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  fillForWriteBehind(B, A.get());
  void *P = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 4, IOPOLY_READ, P).ok()); // writes 1 and 2 ahead
  // Written again while its early copy may still be in flight: the attach
  // waits for that write, and the new bytes make the stripe dirty again.
  ASSERT_TRUE(B.attach(A.get(), 1, IOPOLY_WRITE, P).ok());
  std::memset(P, 0x77, Stripe);
  ASSERT_TRUE(B.release(A.get(), 1).ok());
  ASSERT_TRUE(B.release(A.get(), 4).ok());
  ASSERT_TRUE(B.drop(A.get()).ok());
  EXPECT_EQ(0x77, onDisk(*A, 1)[0]) << "bytes written after the write-behind were lost";
  EXPECT_EQ(2u, writesOf(*A, 1));
  EXPECT_EQ(1u, H.Counters.C.WriteBehindAgain);
}

TEST(StripeBuffer, FailedWriteBehindLosesNothing) {
  BufferHarness H(4, Stripe, 2, /*Prefetch=*/true, "hdd", /*Threads=*/true, /*IoRetries=*/0, /*WriteBehind=*/true);
  auto Plan = std::make_shared<FaultPlan>();
  auto A = makeMemArray("F", 1, 8 * Stripe, Stripe, 2, Plan);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  fillForWriteBehind(B, A.get());
  {
    std::lock_guard<std::mutex> G(Plan->Mu);
    Plan->FailWrites = 1; // the first of the two writes ahead fails
  }
  void *P = nullptr;
  ASSERT_TRUE(B.attach(A.get(), 4, IOPOLY_READ, P).ok()) << "a write-behind's failure is not the attach's";
  ASSERT_TRUE(B.release(A.get(), 4).ok());
  ASSERT_TRUE(B.drop(A.get()).ok()) << "the flush at close writes the stripe again";
  for (size_t S = 1; S <= 3; ++S)
    EXPECT_EQ(static_cast<char>(0x40 + S), onDisk(*A, S)[Stripe - 1]) << "stripe " << S;
  const Counters &C = H.Counters.C;
  EXPECT_EQ(1u, C.WriteErrors);
  EXPECT_EQ(1u, C.WriteBehind) << "the failed write is taken back";
  EXPECT_EQ(3u, C.Writebacks);
}

TEST(StripeBuffer, WriteBehindPausesWhereItsWritesAreForNothing) {
  // Four hot stripes written again after every four cold reads: each time
  // they have drifted to the LRU end, are written ahead, and change again.
  BufferHarness H(8, Stripe, 2, /*Prefetch=*/true, "none", /*Threads=*/true, 3, /*WriteBehind=*/true);
  auto A = makeMemArray("P", 1, 64 * Stripe, Stripe, 2);
  H.track(*A);
  StripeBuffer &B = *H.Buffer;
  constexpr unsigned Rounds = 2000;
  void *P = nullptr;
  for (unsigned R = 0; R < Rounds; ++R) {
    for (size_t S = 0; S < 4; ++S) {
      ASSERT_TRUE(B.attach(A.get(), S, IOPOLY_WRITE, P).ok());
      static_cast<unsigned char *>(P)[0] = static_cast<unsigned char>(R);
      ASSERT_TRUE(B.release(A.get(), S).ok());
    }
    for (size_t K = 0; K < 4; ++K) {
      size_t S = 4 + (R * 4 + K) % 60;
      ASSERT_TRUE(B.attach(A.get(), S, IOPOLY_READ, P).ok());
      ASSERT_TRUE(B.release(A.get(), S).ok());
    }
  }
  ASSERT_TRUE(B.drop(A.get()).ok());
  for (size_t S = 0; S < 4; ++S)
    EXPECT_EQ(static_cast<unsigned char>(Rounds - 1), static_cast<unsigned char>(onDisk(*A, S)[0]));
  const Counters &C = H.Counters.C;
  EXPECT_GT(C.WriteBehindAgain, 0u) << "the pattern wastes early writes";
  // Without the pause every round writes about four stripes ahead (7,996);
  // with it, windows of 64 and ever longer pauses (448).
  EXPECT_LT(C.WriteBehind, Rounds / 4) << C.WriteBehind << " early writes, " << C.WriteBehindAgain << " for nothing";
}
