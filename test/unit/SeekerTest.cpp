//===- SeekerTest.cpp - Seeker/reaper walks over in-memory arrays ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A seeker walks a step sequence over a MemFile array through a stripe
// buffer with real I/O threads: at every step each block of that step is
// attached and holds the right bytes, blocks no step has reached are not
// handed out, pins stay within the window and the buffer, no stripe is read
// twice while the window keeps it, writes reach the files, bad step lists
// are reported, and every pin is back to zero at close.
//
//===----------------------------------------------------------------------===//
#include "core/Seeker.h"

#include "BufferHarness.h"
#include "TestBackends.h"

#include <gtest/gtest.h>

#include <set>

using namespace iopoly;
using namespace iopoly::test;

namespace {

constexpr size_t Stripe = 64;

char byteOf(size_t S, size_t I) { return static_cast<char>(S * 31 + I * 7 + 1); }

/// Gives every stripe of \p A its own recognizable bytes, on "disk".
void fill(iopoly_array &A) {
  for (size_t S = 0; S < A.Geo.numStripes(); ++S) {
    MemFile &F = memFile(A, A.Geo.diskOf(S));
    for (size_t I = 0; I < A.Geo.stripeBytes(S); ++I)
      F.Data[A.Geo.fileOffset(S) + I] = byteOf(S, I);
  }
}

::testing::AssertionResult holds(iopoly_array &A, size_t S, const void *P, char Delta = 0) {
  if (!P)
    return ::testing::AssertionFailure() << "block " << S << " has no address";
  const char *C = static_cast<const char *>(P);
  for (size_t I = 0; I < A.Geo.stripeBytes(S); ++I)
    if (C[I] != static_cast<char>(byteOf(S, I) + Delta))
      return ::testing::AssertionFailure() << "block " << S << " byte " << I << " is wrong";
  return ::testing::AssertionSuccess();
}

/// Steps of a sliding window: step s touches First(s) .. First(s)+Width-1,
/// First(s) = s * Stride, clamped to the array.
struct Window {
  size_t Width, Stride, NumBlocks;
  size_t Extra = 0; ///< report this many more blocks than asked (error test)
  size_t Beyond = 0; ///< add block NumBlocks + Beyond - 1 (error test)
  bool Duplicates = false;
  std::vector<size_t> of(size_t Step) const {
    std::vector<size_t> V;
    for (size_t K = 0; K < Width; ++K)
      V.push_back(std::min(NumBlocks - 1, Step * Stride + K));
    if (Duplicates)
      V.push_back(V.front());
    return V;
  }
};

size_t stepFn(void *Ctx, size_t Step, size_t *Out, size_t Max) {
  const Window &W = *static_cast<const Window *>(Ctx);
  std::vector<size_t> V = W.of(Step);
  if (W.Beyond)
    V.push_back(W.NumBlocks + W.Beyond - 1);
  for (size_t I = 0; I < V.size() && I < Max; ++I)
    Out[I] = V[I];
  return V.size() + W.Extra;
}

} // namespace

TEST(Seeker, EveryBlockOfTheCurrentStepIsAttachedAndCorrect) {
  BufferHarness H(8, Stripe, 2);
  auto A = makeMemArray("S", 1, 40 * Stripe - 9, Stripe, 2);
  H.track(*A);
  fill(*A);
  Window W{3, 1, 40};
  const size_t Steps = 38, Lookahead = 2;
  iopoly_seeker Sk(*H.Buffer, A.get(), Steps, stepFn, &W, 3, Lookahead, IOPOLY_READ);
  Status E;
  for (size_t S = 0; S < Steps; ++S) {
    ASSERT_EQ(static_cast<long>(S), Sk.next(E)) << E.message();
    for (size_t B : W.of(S)) {
      void *P = nullptr;
      Status BS = Sk.block(B, P);
      ASSERT_TRUE(BS.ok()) << "step " << S << ": " << BS.message();
      ASSERT_TRUE(holds(*A, B, P)) << "step " << S;
    }
    size_t Pins = H.Buffer->pinCount(A.get());
    EXPECT_GE(Pins, 3u) << "the current step's blocks are pinned";
    EXPECT_LE(Pins, (Lookahead + 1) * 3) << "no more than the window";
    EXPECT_LE(Pins, H.Buffer->numFrames());
    void *P = nullptr;
    Status Far = Sk.block(39, P);
    if (S + 3 + Lookahead <= 39) {
      EXPECT_FALSE(Far.ok()) << "block 39 handed out at step " << S;
      EXPECT_NE(std::string::npos, Far.message().find("array 'S'")) << Far.message();
    }
  }
  EXPECT_EQ(-1, Sk.next(E));
  EXPECT_TRUE(E.ok()) << E.message();
  EXPECT_EQ(-1, Sk.next(E)) << "stays at the end";
  ASSERT_TRUE(Sk.close().ok());
  EXPECT_EQ(0u, H.Buffer->pinCount(nullptr));
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
  // The window (at most 5 distinct blocks) fits in 8 frames: each stripe
  // came from disk exactly once.
  for (size_t S = 0; S < 40; ++S)
    EXPECT_EQ(1u, memFile(*A, A->Geo.diskOf(S)).ReadsAt[A->Geo.fileOffset(S)]) << "stripe " << S;
}

TEST(Seeker, LookaheadLongerThanTheBufferStaysWithinTheFrames) {
  BufferHarness H(4, Stripe, 3);
  auto A = makeMemArray("L", 2, 40 * Stripe, Stripe, 3);
  H.track(*A);
  fill(*A);
  Window W{2, 2, 40};
  iopoly_seeker Sk(*H.Buffer, A.get(), 20, stepFn, &W, 2, /*Lookahead=*/20, IOPOLY_READ);
  Status E;
  for (size_t S = 0; S < 20; ++S) {
    ASSERT_EQ(static_cast<long>(S), Sk.next(E)) << E.message();
    for (size_t B : W.of(S)) {
      void *P = nullptr;
      ASSERT_TRUE(Sk.block(B, P).ok());
      ASSERT_TRUE(holds(*A, B, P));
    }
    EXPECT_LE(H.Buffer->pinCount(nullptr), 4u);
  }
  EXPECT_EQ(-1, Sk.next(E));
  EXPECT_TRUE(E.ok()) << E.message();
  ASSERT_TRUE(Sk.close().ok());
  EXPECT_EQ(0u, H.Buffer->pinCount(nullptr));
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
}

TEST(Seeker, WritesThroughTheSeekerReachTheFiles) {
  BufferHarness H(6, Stripe, 2);
  auto A = makeMemArray("W", 3, 24 * Stripe, Stripe, 2);
  H.track(*A);
  fill(*A);
  Window W{2, 1, 24}; // step s touches s and s+1
  iopoly_seeker Sk(*H.Buffer, A.get(), 23, stepFn, &W, 2, 1, IOPOLY_READ | IOPOLY_WRITE);
  Status E;
  std::vector<int> Touches(24, 0);
  while (true) {
    long S = Sk.next(E);
    ASSERT_TRUE(E.ok()) << E.message();
    if (S < 0)
      break;
    for (size_t B : W.of(static_cast<size_t>(S))) {
      void *P = nullptr;
      ASSERT_TRUE(Sk.block(B, P).ok());
      ASSERT_TRUE(holds(*A, B, P, static_cast<char>(Touches[B]))) << "step " << S;
      char *C = static_cast<char *>(P);
      for (size_t I = 0; I < Stripe; ++I)
        C[I] = static_cast<char>(C[I] + 1);
      ++Touches[B];
    }
  }
  ASSERT_TRUE(Sk.close().ok());
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
  for (size_t S = 0; S < 24; ++S) {
    EXPECT_EQ(S == 0 || S == 23 ? 1 : 2, Touches[S]);
    const char *OnDisk = memFile(*A, A->Geo.diskOf(S)).Data.data() + A->Geo.fileOffset(S);
    EXPECT_TRUE(holds(*A, S, OnDisk, static_cast<char>(Touches[S]))) << "on disk";
  }
}

TEST(Seeker, DuplicateBlocksInAStepArePinnedOnce) {
  BufferHarness H(4, Stripe, 1);
  auto A = makeMemArray("D", 4, 8 * Stripe, Stripe, 1);
  H.track(*A);
  fill(*A);
  Window W{1, 1, 8};
  W.Duplicates = true;
  iopoly_seeker Sk(*H.Buffer, A.get(), 8, stepFn, &W, 2, 0, IOPOLY_READ);
  Status E;
  for (long S = 0; S < 8; ++S) {
    ASSERT_EQ(S, Sk.next(E)) << E.message();
    EXPECT_EQ(1u, H.Buffer->pinCount(A.get()));
  }
  ASSERT_TRUE(Sk.close().ok());
  EXPECT_EQ(0u, H.Buffer->pinCount(nullptr));
}

TEST(Seeker, ClosingMidWalkReleasesEverything) {
  BufferHarness H(8, Stripe, 2);
  auto A = makeMemArray("C", 5, 30 * Stripe, Stripe, 2);
  H.track(*A);
  Window W{3, 1, 30};
  iopoly_seeker Sk(*H.Buffer, A.get(), 28, stepFn, &W, 3, 2, IOPOLY_READ);
  Status E;
  for (long S = 0; S < 5; ++S)
    ASSERT_EQ(S, Sk.next(E)) << E.message();
  EXPECT_GT(H.Buffer->pinCount(A.get()), 0u);
  ASSERT_TRUE(Sk.close().ok());
  EXPECT_EQ(0u, H.Buffer->pinCount(nullptr));
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok()) << "nothing is left attached";
}

TEST(Seeker, StepListsThatAreTooLongOrOutOfRangeAreErrors) {
  BufferHarness H(8, Stripe, 2);
  auto A = makeMemArray("E", 6, 10 * Stripe, Stripe, 2);
  H.track(*A);
  Status E;
  {
    Window W{2, 1, 10};
    W.Extra = 1;
    iopoly_seeker Sk(*H.Buffer, A.get(), 5, stepFn, &W, 2, 1, IOPOLY_READ);
    EXPECT_EQ(-1, Sk.next(E));
    ASSERT_FALSE(E.ok());
    EXPECT_NE(std::string::npos, E.message().find("more than max_blocks_per_step=2")) << E.message();
    EXPECT_NE(std::string::npos, E.message().find("array 'E'")) << E.message();
    EXPECT_TRUE(Sk.close().ok());
  }
  {
    Window W{1, 1, 10};
    W.Beyond = 3; // block 12
    iopoly_seeker Sk(*H.Buffer, A.get(), 5, stepFn, &W, 2, 0, IOPOLY_READ);
    EXPECT_EQ(-1, Sk.next(E));
    ASSERT_FALSE(E.ok());
    EXPECT_NE(std::string::npos, E.message().find("touches block 12, but the array has 10 blocks")) << E.message();
    EXPECT_TRUE(Sk.close().ok());
  }
  EXPECT_EQ(0u, H.Buffer->pinCount(nullptr));
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
}

namespace {
/// A step function that names other blocks when asked again for a step.
struct Drifting {
  std::vector<unsigned> Calls = std::vector<unsigned>(16, 0);
};
size_t driftFn(void *Ctx, size_t Step, size_t *Out, size_t Max) {
  Drifting &D = *static_cast<Drifting *>(Ctx);
  if (Max < 1)
    return 1;
  Out[0] = D.Calls[Step]++ == 0 ? Step : Step + 8;
  return 1;
}
} // namespace

TEST(Seeker, AStepFunctionThatChangesItsAnswerIsAnError) {
  BufferHarness H(8, Stripe, 2);
  auto A = makeMemArray("D", 3, 40 * Stripe, Stripe, 2);
  H.track(*A);
  fill(*A);
  Drifting D;
  iopoly_seeker Sk(*H.Buffer, A.get(), 4, driftFn, &D, 1, /*Lookahead=*/1, IOPOLY_READ);
  Status E;
  EXPECT_EQ(-1, Sk.next(E));
  ASSERT_FALSE(E.ok());
  EXPECT_NE(std::string::npos, E.message().find("array 'D'")) << E.message();
  EXPECT_NE(std::string::npos, E.message().find("same blocks each time")) << E.message();
  ASSERT_TRUE(Sk.close().ok());
  EXPECT_EQ(0u, H.Buffer->pinCount(nullptr));
  ASSERT_TRUE(H.Buffer->drop(A.get()).ok());
}
