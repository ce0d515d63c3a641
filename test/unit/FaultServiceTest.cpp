//===- FaultServiceTest.cpp - Page faults served while the buffer is busy -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The hidden-memory path under the sanitizers (scripts/test.sh --asan and
// --tsan run this file): this test code is not compiled with the plugin,
// so its accesses to iopoly_alloc memory are page faults. Several threads
// write and read one array through them while the buffer (16 frames for 128
// stripes) evicts, another thread flushes (write-back write-protects views)
// and another attaches and releases stripes through the C API: the fault
// handler, the service thread and the buffer together, under each front end.
// Each test sets up the process-wide runtime before its first use; ctest
// runs every test in its own process (run together with other tests that
// started the runtime first, the test keeps that configuration).
//
//===----------------------------------------------------------------------===//
#include "core/Runtime.h"
#include "memory/Arena.h"
#include "TestTemp.h"

#include "iopoly.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace iopoly;

namespace {


/// The runtime's environment for this process (before it starts).
void configure(const char *Faults, const std::string &Dir) {
  setenv("IOPOLY_DIR", Dir.c_str(), 1);
  setenv("IOPOLY_DISKS", "2", 1);
  setenv("IOPOLY_STRIPE", "4K", 1);
  setenv("IOPOLY_BUFFER", "64K", 1);
  setenv("IOPOLY_DISK_MODEL", "none", 1);
  setenv("IOPOLY_DIRECT", "off", 1);
  setenv("IOPOLY_THRASH", "0", 1);
  setenv("IOPOLY_PROGRESS", "0", 1);
  setenv("IOPOLY_FAULTS", Faults, 1);
}

unsigned char pattern(size_t I, unsigned Round) { return static_cast<unsigned char>(I * 7 + Round * 13 + I / 4099); }

void busyArray(const char *Faults) {
  test::ScratchDir D("faults");
  ASSERT_TRUE(D.ok());
  configure(Faults, D.Path);
  const size_t Stripe = iopoly_block_size(), Bytes = 128 * Stripe;
  const std::string Name = "busy-" + std::to_string(::getpid());
  auto *P = static_cast<unsigned char *>(iopoly_alloc_flags(Name.c_str(), Bytes, IOPOLY_CREATE | IOPOLY_TRUNC));
  ASSERT_NE(nullptr, P) << iopoly_last_error();
  constexpr unsigned Threads = 4, Rounds = 3;
  std::atomic<bool> Stop{false};
  std::atomic<unsigned> Bad{0};
  std::vector<std::thread> Workers;
  for (unsigned T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      // Parts interleaved by 1000 bytes, so that threads share stripes.
      for (unsigned R = 0; R < Rounds; ++R) {
        for (size_t I = T * 1000; I < Bytes; I += Threads * 1000)
          for (size_t K = I; K < I + 1000 && K < Bytes; ++K)
            P[K] = pattern(K, R);
        for (size_t I = T * 1000; I < Bytes; I += Threads * 1000)
          for (size_t K = I; K < I + 1000 && K < Bytes; ++K)
            if (P[K] != pattern(K, R))
              Bad++;
      }
    });
  std::thread Flusher([&] {
    iopoly_array *A = iopoly_array_of(P);
    while (!Stop)
      (void)iopoly_flush(A);
  });
  std::thread Attacher([&] {
    iopoly_array *A = iopoly_array_of(P);
    for (size_t B = 0; !Stop; B = (B + 5) % (Bytes / Stripe))
      if (iopoly_attach(A, B, IOPOLY_READ))
        iopoly_release(A, B);
  });
  for (std::thread &W : Workers)
    W.join();
  Stop = true;
  Flusher.join();
  Attacher.join();
  EXPECT_EQ(0u, Bad.load()) << "a thread read back something else than it wrote";
  for (size_t I = 0; I < Bytes; ++I)
    if (P[I] != pattern(I, Rounds - 1)) {
      ADD_FAILURE() << "byte " << I << " lost its last write";
      break;
    }
  uint64_t Faults_ = Runtime::existing()->buffer().locked([] { return Runtime::existing()->stats().C.FaultedAccesses; });
  EXPECT_GT(Faults_, Bytes / Stripe) << "128 stripes through 16 frames: faults on every pass";
  ASSERT_EQ(0, iopoly_free(P)) << iopoly_last_error();
  // The last writes are on disk.
  size_t Dims[1] = {Bytes};
  iopoly_array *A = iopoly_open(Name.c_str(), 1, 1, Dims, IOPOLY_RDONLY);
  ASSERT_NE(nullptr, A) << iopoly_last_error();
  for (size_t B = 0; B < Bytes / Stripe; ++B) {
    auto *Blk = static_cast<const unsigned char *>(iopoly_attach(A, B, IOPOLY_READ));
    ASSERT_NE(nullptr, Blk);
    for (size_t I = 0; I < Stripe; ++I)
      if (Blk[I] != pattern(B * Stripe + I, Rounds - 1)) {
        ADD_FAILURE() << "block " << B << " byte " << I << " on disk";
        break;
      }
    iopoly_release(A, B);
  }
  EXPECT_EQ(0, iopoly_close(A));
}

} // namespace

TEST(FaultService, ThreadsFaultWhileTheBufferEvictsFlushesAndAttachesSignal) { busyArray("signal"); }

TEST(FaultService, ThreadsFaultWhileTheBufferEvictsFlushesAndAttachesUserfaultfd) { busyArray("userfaultfd"); }
