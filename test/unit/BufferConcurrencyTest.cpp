//===- BufferConcurrencyTest.cpp - Many threads on one small stripe buffer ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Four threads attach, attach ahead, release, prefetch and write stripes of
// three arrays through a ten-frame buffer with real I/O threads, while
// flushes run. Each byte of each array belongs to one thread: in array X
// every stripe is shared by all threads (8-byte lanes), in Y each stripe
// belongs to one thread, in Z lanes straddle stripe boundaries. In each
// round one array is written (by its owners, in parallel) and the others
// are flushed; a barrier separates rounds, and a flush of everything runs
// between them. Every attach must see the owner's last bytes, every pin is
// released, and at the end the files hold exactly what each thread wrote.
// Runs under ThreadSanitizer (label "threads"). Seeds are fixed.
//
//===----------------------------------------------------------------------===//
#include "BufferHarness.h"
#include "TestBackends.h"

#include "iopoly.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <random>
#include <thread>

using namespace iopoly;
using namespace iopoly::test;

namespace {

constexpr size_t Stripe = 64, Frames = 10, Threads = 4, Disks = 3;
constexpr unsigned Rounds = 60, OpsPerRound = 80;

/// Reusable barrier (C++17 has none).
class Barrier {
public:
  explicit Barrier(size_t N) : N(N) {}
  void wait() {
    std::unique_lock<std::mutex> L(Mu);
    size_t Gen = Generation;
    if (++Arrived == N) {
      Arrived = 0;
      ++Generation;
      CV.notify_all();
      return;
    }
    CV.wait(L, [&] { return Gen != Generation; });
  }

private:
  std::mutex Mu;
  std::condition_variable CV;
  size_t N, Arrived = 0, Generation = 0;
};

struct Shared {
  std::vector<std::unique_ptr<iopoly_array>> Arrays;
  std::vector<size_t> LaneBytes; ///< lane width per array; 0: whole stripes
  BufferHarness *H = nullptr;

  size_t owner(size_t Array, size_t Off) const {
    size_t Lane = LaneBytes[Array];
    return (Lane ? Off / Lane : Off / Stripe) % Threads;
  }
};

/// One thread's view: the bytes it owns, and its first failure.
struct Worker {
  size_t Id;
  std::vector<std::vector<char>> Mine; ///< full-size images; only owned bytes matter
  std::string Failure;
  unsigned long long Attaches = 0, Writes = 0, Prefetches = 0, Flushes = 0;

  void fail(const std::string &Msg) {
    if (Failure.empty())
      Failure = Msg;
  }
};

struct Pin {
  size_t Array, Stripe;
  char *Data;
  bool Write;
};

void checkOwned(Shared &Sh, Worker &W, const Pin &P) {
  iopoly_array &A = *Sh.Arrays[P.Array];
  size_t Base = P.Stripe * Stripe;
  for (size_t I = 0; I < A.Geo.stripeBytes(P.Stripe); ++I)
    if (Sh.owner(P.Array, Base + I) == W.Id && P.Data[I] != W.Mine[P.Array][Base + I]) {
      W.fail("thread " + std::to_string(W.Id) + " saw stale bytes in stripe " + std::to_string(P.Stripe) +
             " of array " + A.Name);
      return;
    }
}

void runWorker(Shared &Sh, Worker &W, Barrier &Bar) {
  StripeBuffer &B = *Sh.H->Buffer;
  std::mt19937_64 R(1000 + W.Id);
  std::vector<Pin> Pins;
  auto ReleaseOne = [&](size_t I) {
    Pin P = Pins[I];
    Pins.erase(Pins.begin() + static_cast<long>(I));
    if (Status S = B.release(Sh.Arrays[P.Array].get(), P.Stripe))
      W.fail("release: " + S.message());
  };
  for (unsigned Round = 0; Round < Rounds; ++Round) {
    size_t Writable = Round % Sh.Arrays.size();
    for (unsigned Op = 0; Op < OpsPerRound && W.Failure.empty(); ++Op) {
      size_t Ai = R() % Sh.Arrays.size();
      iopoly_array *A = Sh.Arrays[Ai].get();
      size_t S = R() % A->Geo.numStripes();
      unsigned Kind = static_cast<unsigned>(R() % 100);
      if (Kind < 55 && Pins.size() < 2) {
        bool Write = Kind < 30;
        if (Write) {
          Ai = Writable;
          A = Sh.Arrays[Ai].get();
          S = R() % A->Geo.numStripes();
          if (Sh.LaneBytes[Ai] == 0) // whole stripes: pick one of mine
            S = (S / Threads) * Threads + W.Id < A->Geo.numStripes() ? (S / Threads) * Threads + W.Id : W.Id;
        }
        void *Data = nullptr;
        Status St;
        if (!Write && Kind % 5 == 0) { // the seeker's way: pin ahead, wait later
          bool Pinned = false;
          St = B.pinAhead(A, S, IOPOLY_READ, Pinned);
          if (St.ok() && !Pinned)
            St = Status::error("pinAhead found no frame with at most 8 of 10 attached");
          if (St.ok())
            St = B.waitReady(A, S, Data);
        } else {
          St = B.attach(A, S, Write ? IOPOLY_READ | IOPOLY_WRITE : IOPOLY_READ, Data);
        }
        if (St) {
          W.fail("attach: " + St.message());
          break;
        }
        ++W.Attaches;
        Pins.push_back({Ai, S, static_cast<char *>(Data), Write});
        checkOwned(Sh, W, Pins.back());
        if (Write) {
          ++W.Writes;
          size_t Base = S * Stripe;
          for (size_t I = 0; I < A->Geo.stripeBytes(S); ++I)
            if (Sh.owner(Ai, Base + I) == W.Id)
              Pins.back().Data[I] = W.Mine[Ai][Base + I] = static_cast<char>(R());
        }
      } else if (Kind < 85 && !Pins.empty()) {
        ReleaseOne(R() % Pins.size());
      } else if (Kind < 97) {
        bool Taken;
        if (Status St = B.prefetch(A, S, Taken))
          W.fail("prefetch: " + St.message());
        ++W.Prefetches;
      } else {
        // Flush an array nobody writes in this round.
        size_t F = (Writable + 1 + R() % (Sh.Arrays.size() - 1)) % Sh.Arrays.size();
        if (Status St = B.flush(Sh.Arrays[F].get()))
          W.fail("flush: " + St.message());
        ++W.Flushes;
      }
    }
    while (!Pins.empty())
      ReleaseOne(Pins.size() - 1);
    Bar.wait();
    if (W.Id == Round % Threads)
      if (Status St = B.flush(nullptr))
        W.fail("flush of everything: " + St.message());
    Bar.wait();
  }
}

} // namespace

TEST(BufferConcurrency, ThreadsSharingStripesSeeTheirOwnWritesAndLeaveNoPins) {
  BufferHarness H(Frames, Stripe, Disks, /*Prefetch=*/true, "hdd", /*Threads=*/true);
  Shared Sh;
  Sh.H = &H;
  const size_t Sizes[3] = {24 * Stripe, 20 * Stripe - 7, 30 * Stripe + 5};
  Sh.LaneBytes = {8, 0, 24};
  for (unsigned I = 0; I < 3; ++I) {
    Sh.Arrays.push_back(makeMemArray(std::string(1, static_cast<char>('X' + I)), I + 1, Sizes[I], Stripe, Disks));
    ASSERT_NE(nullptr, Sh.Arrays.back());
    H.track(*Sh.Arrays.back());
  }
  std::vector<Worker> Workers(Threads);
  for (size_t T = 0; T < Threads; ++T) {
    Workers[T].Id = T;
    for (size_t I = 0; I < 3; ++I)
      Workers[T].Mine.emplace_back(Sizes[I], 0);
  }
  Barrier Bar(Threads);
  std::vector<std::thread> Ts;
  for (size_t T = 0; T < Threads; ++T)
    Ts.emplace_back([&, T] { runWorker(Sh, Workers[T], Bar); });
  for (std::thread &T : Ts)
    T.join();

  unsigned long long Attaches = 0, Writes = 0, Prefetches = 0, Flushes = 0;
  for (const Worker &W : Workers) {
    EXPECT_EQ("", W.Failure) << "thread " << W.Id;
    Attaches += W.Attaches;
    Writes += W.Writes;
    Prefetches += W.Prefetches;
    Flushes += W.Flushes;
  }
  // The random mix did exercise every operation.
  EXPECT_GT(Writes, 500u);
  EXPECT_GT(Attaches, Writes);
  EXPECT_GT(Prefetches, 100u);
  EXPECT_GT(Flushes, 10u);
  StripeBuffer &B = *H.Buffer;
  EXPECT_EQ(0u, B.pinCount(nullptr));
  B.locked([&] {
    EXPECT_EQ(Attaches, H.Counters.C.Attaches);
    EXPECT_EQ(Attaches, H.Counters.C.Releases);
    EXPECT_GT(H.Counters.C.Evictions, 0u);
    EXPECT_EQ(0u, H.Counters.C.ReadErrors + H.Counters.C.WriteErrors);
    return 0;
  });
  for (auto &A : Sh.Arrays) {
    Status S = B.drop(A.get());
    ASSERT_TRUE(S.ok()) << S.message();
  }
  for (size_t Ai = 0; Ai < 3; ++Ai) {
    iopoly_array &A = *Sh.Arrays[Ai];
    for (size_t S = 0; S < A.Geo.numStripes(); ++S) {
      const char *Disk = memFile(A, A.Geo.diskOf(S)).Data.data() + A.Geo.fileOffset(S);
      for (size_t I = 0; I < A.Geo.stripeBytes(S); ++I) {
        size_t Off = S * Stripe + I;
        ASSERT_EQ(Workers[Sh.owner(Ai, Off)].Mine[Ai][Off], Disk[I])
            << "array " << A.Name << " byte " << Off << " (thread " << Sh.owner(Ai, Off) << ")";
      }
    }
  }
}
