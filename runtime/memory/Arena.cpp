//===- Arena.cpp - Address space of iopoly_alloc memory --------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "memory/Arena.h"
#include "core/Array.h"
#include "memory/FaultService.h"

#include "iopoly.h"

#include <algorithm>
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

uintptr_t baseOf(const iopoly_array *A) { return reinterpret_cast<uintptr_t>(A->AllocBase); }
uintptr_t endOf(const iopoly_array *A) { return baseOf(A) + A->Geo.TotalBytes; }

/// Granules left free at the bottom of the arena: a large negative index
/// into the lowest array stays in the arena, where it is reported, instead
/// of reaching what the kernel maps just below it (buffer frames, thread
/// stacks). Address space only: the arena is PROT_NONE and unreserved.
size_t bottomMargin() { return Granules.size() / 64; }

std::string pastEnd(const iopoly_array *A, uintptr_t P, size_t Len) {
  size_t Off = P - baseOf(A);
  return Len > 1 ? format("bytes %zu..%zu of %s: past its end", Off, Off + Len - 1, arrayWords(A).c_str())
                 : format("byte %zu of %s: past its end", Off, arrayWords(A).c_str());
}

std::string beforeStart(const iopoly_array *A, uintptr_t P) {
  size_t Before = baseOf(A) - P;
  return format("%zu byte%s before the start of %s (a negative index)", Before, Before == 1 ? "" : "s",
                arrayWords(A).c_str());
}

/// How far \p P, outside \p A's bytes, is from them.
uint64_t distance(const iopoly_array *A, uintptr_t P) { return P < baseOf(A) ? baseOf(A) - P : P - endOf(A); }

/// "past its end" or "before the start" of \p A, whichever \p P is.
std::string relation(const iopoly_array *A, uintptr_t P, size_t Len) {
  return P < baseOf(A) ? beforeStart(A, P) : pastEnd(A, P, Len);
}

/// For \p P outside every array's bytes: the arrays it may belong to, the
/// nearest first, then any other within four times its distance (three at
/// most). ArenaMu held; a scan of the granule table, for messages only.
std::vector<iopoly_array *> suspects(uintptr_t P) {
  std::vector<std::pair<uint64_t, iopoly_array *>> All;
  iopoly_array *Last = nullptr;
  for (size_t G = 0; G < Granules.size(); ++G) {
    iopoly_array *A = iopoly_arena_table_[G].load(std::memory_order_acquire);
    if (A && A != Last)
      All.push_back({distance(A, P), A});
    Last = A;
  }
  std::sort(All.begin(), All.end(), [](const auto &X, const auto &Y) {
    return X.first != Y.first ? X.first < Y.first : baseOf(X.second) < baseOf(Y.second);
  });
  std::vector<iopoly_array *> Out;
  for (const auto &[D, A] : All)
    if (Out.size() < 3 && (Out.empty() || D / 4 <= All.front().first))
      Out.push_back(A);
  return Out;
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
  for (size_t I = bottomMargin(); I + 1 < Granules.size(); ++I) {
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

bool arenaGap(uintptr_t P, uintptr_t &Lo, uintptr_t &Hi) {
  uintptr_t Base = iopoly_arena_base_;
  if (P - Base >= iopoly_arena_size_)
    return false;
  constexpr uintptr_t G = uintptr_t(1) << ArenaGranuleShift;
  constexpr size_t MaxScan = 4; // granules looked at on each side
  size_t NGr = iopoly_arena_size_ >> ArenaGranuleShift, Gr = (P - Base) >> ArenaGranuleShift;
  auto Owner = [](size_t K) { return iopoly_arena_table_[K].load(std::memory_order_acquire); };
  if (iopoly_array *A = Owner(Gr))
    if (P >= baseOf(A) && P < endOf(A))
      return false;
  Hi = Base + (Gr + 1) * G;
  if (iopoly_array *A = Owner(Gr); A && baseOf(A) > P)
    Hi = baseOf(A);
  else
    for (size_t K = Gr + 1; K < NGr && K <= Gr + MaxScan; ++K) {
      if (iopoly_array *B = Owner(K)) {
        Hi = baseOf(B);
        break;
      }
      Hi = Base + (K + 1) * G;
    }
  Lo = Base + Gr * G;
  if (iopoly_array *A = Owner(Gr); A && endOf(A) <= P)
    Lo = endOf(A);
  else
    for (size_t K = Gr; K-- > 0 && K + MaxScan >= Gr;) {
      if (iopoly_array *B = Owner(K)) {
        Lo = endOf(B);
        break;
      }
      Lo = Base + K * G;
    }
  return true;
}

iopoly_array *arenaResolve(uintptr_t P, size_t Len, size_t &Off, std::string &Why) {
  if (iopoly_array *A = arenaOwner(reinterpret_cast<void *>(P))) {
    uintptr_t Base = baseOf(A);
    Off = P - Base;
    if (P >= Base && Off + Len <= A->Geo.TotalBytes && Off + Len >= Off)
      return A;
    if (P >= Base && Off < A->Geo.TotalBytes) { // starts inside, ends outside
      Why = pastEnd(A, P, Len);
      return nullptr;
    }
  }
  std::lock_guard<std::mutex> G(ArenaMu);
  if (P - iopoly_arena_base_ >= iopoly_arena_size_) {
    Why = format("address %p is not disk-resident memory", reinterpret_cast<void *>(P));
    return nullptr;
  }
  size_t Gr = (P - iopoly_arena_base_) >> ArenaGranuleShift;
  if (Granules[Gr] == Use::Free)
    for (const auto &KV : Freed)
      if (Gr >= KV.first && Gr < KV.first + KV.second.first) {
        Why = format("address %p was disk-resident array '%s', which has been freed (iopoly_free or free)",
                     reinterpret_cast<void *>(P), KV.second.second.c_str());
        return nullptr;
      }
  // The address alone does not say which array the access meant: the
  // nearest is named, and others that are not over four times as far
  // (A[-1] is not reported as far past the end of the array below it;
  // A[huge] that lands near another array names both).
  std::vector<iopoly_array *> S = suspects(P);
  if (S.empty()) {
    Why = format("address %p is in disk-resident address space that belongs to no array",
                 reinterpret_cast<void *>(P));
    return nullptr;
  }
  Why = relation(S[0], P, Len);
  for (size_t I = 1; I < S.size(); ++I)
    Why += "; or " + relation(S[I], P, Len);
  if (S.size() > 1)
    Why += " (the address alone does not say which array was meant)";
  return nullptr;
}

} // namespace iopoly
