//===- Arena.cpp - Address space of iopoly_alloc memory --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "memory/Arena.h"
#include "core/Array.h"

#include "iopoly.h"

#include <csignal>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

extern "C" {
IOPOLY_API uintptr_t iopoly_arena_base_ = 0;
IOPOLY_API uintptr_t iopoly_arena_size_ = 0;
IOPOLY_API std::atomic<iopoly_array *> *iopoly_arena_table_ = nullptr;
}

namespace iopoly {

namespace {

std::mutex ArenaMu;
std::vector<bool> Used; ///< per granule
struct sigaction PreviousSegv;

// Async-signal-safe output helpers: the raw system call, not write(),
// which libiopoly wraps (Interpose.cpp).
void put(const char *S) { (void)!::syscall(SYS_write, 2, S, std::strlen(S)); }
void putNum(unsigned long long V) {
  char Buf[24];
  int I = 23;
  Buf[I] = '\0';
  do {
    Buf[--I] = static_cast<char>('0' + V % 10);
    V /= 10;
  } while (V && I > 0);
  put(Buf + I);
}

void onSegv(int Sig, siginfo_t *Info, void *Ctx) {
  iopoly_array *A = arenaLookup(Info->si_addr);
  if (A) {
    uintptr_t Off = reinterpret_cast<uintptr_t>(Info->si_addr) - reinterpret_cast<uintptr_t>(A->AllocBase);
    put("iopoly: fatal: direct access to disk-resident array '");
    put(A->Name.c_str());
    put("' (byte ");
    putNum(Off);
    put(" of ");
    putNum(A->Geo.TotalBytes);
    put(") from code that does not go through the iopoly runtime.\n"
        "iopoly: this memory is reachable only from code compiled with the iopoly plugin (iopoly-clang);\n"
        "iopoly: build that code with the plugin, or copy data with iopoly_attach/iopoly_release.\n");
    ::signal(SIGABRT, SIG_DFL);
    ::abort();
  }
  // Not ours: hand over to whoever was there before.
  if (PreviousSegv.sa_flags & SA_SIGINFO) {
    if (PreviousSegv.sa_sigaction) {
      PreviousSegv.sa_sigaction(Sig, Info, Ctx);
      return;
    }
  } else if (PreviousSegv.sa_handler != SIG_DFL && PreviousSegv.sa_handler != SIG_IGN) {
    PreviousSegv.sa_handler(Sig);
    return;
  }
  ::signal(SIGSEGV, SIG_DFL); // re-executing the access now dumps core
}

Status initArenaLocked() {
  if (iopoly_arena_base_)
    return {};
  // As large as the platform (or a sanitizer's memory layout) lets us.
  for (unsigned Shift = 44; Shift >= 34; Shift -= 2) {
    size_t Size = size_t(1) << Shift;
    void *P = ::mmap(nullptr, Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (P == MAP_FAILED)
      continue;
    size_t Granules = Size >> ArenaGranuleShift;
    iopoly_arena_table_ = new std::atomic<iopoly_array *>[Granules];
    for (size_t I = 0; I < Granules; ++I)
      iopoly_arena_table_[I].store(nullptr);
    Used.assign(Granules, false);
    iopoly_arena_size_ = Size;
    iopoly_arena_base_ = reinterpret_cast<uintptr_t>(P);
    struct sigaction SA;
    std::memset(&SA, 0, sizeof SA);
    SA.sa_sigaction = onSegv;
    SA.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&SA.sa_mask);
    ::sigaction(SIGSEGV, &SA, &PreviousSegv);
    return {};
  }
  return Status::error("cannot reserve address space for disk-resident memory (mmap PROT_NONE failed)");
}

} // namespace

Status arenaInit() {
  if (iopoly_arena_base_)
    return {};
  std::lock_guard<std::mutex> G(ArenaMu);
  return initArenaLocked();
}

Status arenaReserve(iopoly_array *A, size_t Bytes, void *&Base) {
  std::lock_guard<std::mutex> G(ArenaMu);
  if (Status S = initArenaLocked())
    return S;
  size_t Need = (Bytes + (size_t(1) << ArenaGranuleShift) - 1) >> ArenaGranuleShift;
  if (Need == 0)
    Need = 1;
  size_t Run = 0;
  for (size_t I = 0; I < Used.size(); ++I) {
    Run = Used[I] ? 0 : Run + 1;
    if (Run == Need) {
      size_t First = I + 1 - Need;
      for (size_t J = First; J <= I; ++J) {
        Used[J] = true;
        iopoly_arena_table_[J].store(A, std::memory_order_release);
      }
      Base = reinterpret_cast<void *>(iopoly_arena_base_ + (First << ArenaGranuleShift));
      return {};
    }
  }
  return Status::error(format("out of disk-resident address space: %zu bytes requested, arena of %zu bytes is full",
                              Bytes, static_cast<size_t>(iopoly_arena_size_)));
}

void arenaRelease(void *Base, size_t Bytes) {
  std::lock_guard<std::mutex> G(ArenaMu);
  size_t First = (reinterpret_cast<uintptr_t>(Base) - iopoly_arena_base_) >> ArenaGranuleShift;
  size_t Need = (Bytes + (size_t(1) << ArenaGranuleShift) - 1) >> ArenaGranuleShift;
  for (size_t J = First; J < First + (Need ? Need : 1); ++J) {
    Used[J] = false;
    iopoly_arena_table_[J].store(nullptr, std::memory_order_release);
  }
}

} // namespace iopoly
