//===- Arena.cpp - Address space of iopoly_alloc memory --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "memory/Arena.h"
#include "core/Array.h"
#include "memory/FaultService.h"

#include "iopoly.h"

#include <map>
#include <mutex>
#include <sys/mman.h>
#include <vector>

extern "C" {
IOPOLY_API uintptr_t iopoly_arena_base_ = 0;
IOPOLY_API uintptr_t iopoly_arena_size_ = 0;
IOPOLY_API std::atomic<iopoly_array *> *iopoly_arena_table_ = nullptr;
}

namespace iopoly {

namespace {

constexpr size_t Granule = size_t(1) << ArenaGranuleShift;
constexpr size_t ColorPage = 4096, ColorPages = 509; ///< offsets of arrays in their first granule (< 2 MiB)

enum class Use : unsigned char { Free, Guard, Array };

std::mutex ArenaMu;
std::vector<Use> Granules;                           ///< ArenaMu
std::map<size_t, std::pair<size_t, std::string>> Freed; ///< first granule -> (count, name), ArenaMu
unsigned NextColor = 1; ///< ArenaMu

Status initArenaLocked() {
  if (iopoly_arena_base_)
    return {};
  // As large as the platform (or a sanitizer's memory layout) lets us.
  for (unsigned Shift = 44; Shift >= 34; Shift -= 2) {
    size_t Size = size_t(1) << Shift;
    void *P = ::mmap(nullptr, Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (P == MAP_FAILED)
      continue;
    size_t N = Size >> ArenaGranuleShift;
    iopoly_arena_table_ = new std::atomic<iopoly_array *>[N];
    for (size_t I = 0; I < N; ++I)
      iopoly_arena_table_[I].store(nullptr);
    Granules.assign(N, Use::Free);
    iopoly_arena_size_ = Size;
    iopoly_arena_base_ = reinterpret_cast<uintptr_t>(P);
    installFaultHandler();
    return {};
  }
  return Status::error("cannot reserve address space for disk-resident memory (mmap PROT_NONE failed)");
}

size_t granulesFor(size_t Bytes) { return Bytes ? (Bytes + Granule - 1) >> ArenaGranuleShift : 1; }

std::string arrayWords(const iopoly_array *A) {
  return format("disk-resident array '%s' (%zu bytes)", A->Name.c_str(), static_cast<size_t>(A->Geo.TotalBytes));
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
  startFaultService(); // after the arena exists: its thread reads the bounds
  // Arrays start at a different page offset within their granule: were
  // they all granule-aligned, element i of every array would have the same
  // low 30 address bits, and caches whose way predictor hashes those bits
  // (AMD's L1 uTag) would make two arrays walked together evict each other
  // at every access.
  size_t Color = ((NextColor++ * 0x9E3779B1u) >> 20) % ColorPages * ColorPage;
  // A guard granule, then the array; the topmost granule stays free so
  // that a walk past the end of the last array is still in the arena.
  size_t Need = granulesFor(Bytes + Color) + 1, Run = 0;
  for (size_t I = 0; I + 1 < Granules.size(); ++I) {
    Run = Granules[I] == Use::Free ? Run + 1 : 0;
    if (Run < Need)
      continue;
    size_t GuardAt = I + 1 - Need;
    Base = reinterpret_cast<void *>(iopoly_arena_base_ + ((GuardAt + 1) << ArenaGranuleShift) + Color);
    A->AllocBase = Base; // before the table publishes A (release)
    Granules[GuardAt] = Use::Guard;
    for (size_t J = GuardAt + 1; J <= I; ++J) {
      Granules[J] = Use::Array;
      Freed.erase(J);
      iopoly_arena_table_[J].store(A, std::memory_order_release);
    }
    return {};
  }
  return Status::error(format("out of disk-resident address space: %zu bytes requested, arena of %zu bytes is full",
                              Bytes, static_cast<size_t>(iopoly_arena_size_)));
}

void arenaRelease(void *Base, size_t Bytes, const std::string &Name) {
  std::lock_guard<std::mutex> G(ArenaMu);
  size_t Offset = reinterpret_cast<uintptr_t>(Base) - iopoly_arena_base_;
  size_t First = Offset >> ArenaGranuleShift, Color = Offset & (Granule - 1);
  size_t N = granulesFor(Bytes + Color);
  void *Start = reinterpret_cast<void *>(iopoly_arena_base_ + (First << ArenaGranuleShift));
  // Views and fault-service mappings go; the range is PROT_NONE again.
  ::mmap(Start, N << ArenaGranuleShift, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  for (size_t J = First; J < First + N; ++J) {
    Granules[J] = Use::Free;
    iopoly_arena_table_[J].store(nullptr, std::memory_order_release);
  }
  if (First > 0 && Granules[First - 1] == Use::Guard)
    Granules[First - 1] = Use::Free;
  Freed[First] = {N, Name};
}

iopoly_array *arenaLookup(const void *P) {
  iopoly_array *A = arenaOwner(P);
  if (!A)
    return nullptr;
  uintptr_t Off = reinterpret_cast<uintptr_t>(P) - reinterpret_cast<uintptr_t>(A->AllocBase);
  return Off < A->Geo.TotalBytes ? A : nullptr;
}

iopoly_array *arenaResolve(uintptr_t P, size_t Len, size_t &Off, std::string &Why) {
  if (iopoly_array *A = arenaOwner(reinterpret_cast<void *>(P))) {
    uintptr_t Base = reinterpret_cast<uintptr_t>(A->AllocBase);
    if (P < Base) {
      Why = format("%zu byte%s before the start of %s (a negative index)", static_cast<size_t>(Base - P),
                   Base - P == 1 ? "" : "s", arrayWords(A).c_str());
      return nullptr;
    }
    Off = P - Base;
    if (Off + Len <= A->Geo.TotalBytes && Off + Len >= Off)
      return A;
    Why = Len > 1 ? format("bytes %zu..%zu of %s: past its end", Off, Off + Len - 1, arrayWords(A).c_str())
                  : format("byte %zu of %s: past its end", Off, arrayWords(A).c_str());
    return nullptr;
  }
  std::lock_guard<std::mutex> G(ArenaMu);
  size_t Gr = (P - iopoly_arena_base_) >> ArenaGranuleShift;
  if (P - iopoly_arena_base_ >= iopoly_arena_size_) {
    Why = format("address %p is not disk-resident memory", reinterpret_cast<void *>(P));
    return nullptr;
  }
  iopoly_array *Below = Gr > 0 ? iopoly_arena_table_[Gr - 1].load() : nullptr;
  iopoly_array *Above = Gr + 1 < Granules.size() ? iopoly_arena_table_[Gr + 1].load() : nullptr;
  if (Granules[Gr] == Use::Guard && Above) {
    uintptr_t Start = reinterpret_cast<uintptr_t>(Above->AllocBase);
    size_t Before = Start - P;
    if (Below) {
      uintptr_t End = reinterpret_cast<uintptr_t>(Below->AllocBase) + Below->Geo.TotalBytes;
      if (P - End < Before) {
        Why = format("byte %zu of %s: past its end", static_cast<size_t>(P - End) + Below->Geo.TotalBytes,
                     arrayWords(Below).c_str());
        return nullptr;
      }
    }
    Why = format("%zu byte%s before the start of %s (a negative index)", Before, Before == 1 ? "" : "s",
                 arrayWords(Above).c_str());
    return nullptr;
  }
  for (const auto &KV : Freed)
    if (Gr >= KV.first && Gr < KV.first + KV.second.first) {
      Why = format("address %p was disk-resident array '%s', which has been freed (iopoly_free or free)",
                   reinterpret_cast<void *>(P), KV.second.second.c_str());
      return nullptr;
    }
  if (Below) {
    uintptr_t End = reinterpret_cast<uintptr_t>(Below->AllocBase) + Below->Geo.TotalBytes;
    Why = format("byte %zu of %s: past its end", static_cast<size_t>(P - End) + Below->Geo.TotalBytes,
                 arrayWords(Below).c_str());
    return nullptr;
  }
  Why = format("address %p is in disk-resident address space that belongs to no array", reinterpret_cast<void *>(P));
  return nullptr;
}

} // namespace iopoly
