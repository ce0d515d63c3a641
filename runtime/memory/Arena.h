//===- Arena.h - Address space of iopoly_alloc memory -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// iopoly_alloc hands out addresses inside one large PROT_NONE reservation
// (the arena), in granules of 1 GiB:
//  - code compiled with the plugin turns an address into (array, offset)
//    with one subtraction and one table load, and pointers outside the
//    arena are ordinary memory;
//  - every array is preceded by a guard granule that belongs to no array,
//    so that A[-1], or a walk past the end of the array below, lands in a
//    guard and is reported naming the array instead of reaching another
//    array's data (issue 9, out-of-bounds accesses). The bottom 1/64 of
//    the arena and its top granule hold no array, so that indices far out
//    of bounds of the lowest or highest array are reported too. An address
//    alone does not say which array an access meant: reports name the
//    nearest arrays. An index so far out that it lands inside another
//    array's bytes cannot be told from an access to that array;
//  - code built without the plugin touches the arena through page faults,
//    which memory/FaultService serves from the stripe buffer.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_ARENA_H
#define IOPOLY_RUNTIME_ARENA_H

#include "core/Error.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

struct iopoly_array;

/// Exported so that compiled code can test "is this pointer disk-resident"
/// inline: (uintptr_t)P - Base < Size.
extern "C" {
extern uintptr_t iopoly_arena_base_;
extern uintptr_t iopoly_arena_size_;
extern std::atomic<iopoly_array *> *iopoly_arena_table_;
}

namespace iopoly {

constexpr unsigned ArenaGranuleShift = 30; ///< 1 GiB granules

/// Reserves the arena (once); compiled code needs its bounds even before
/// the first iopoly_alloc.
Status arenaInit();
/// Reserves \p Bytes of addresses for \p A, after a guard granule; returns
/// the base (also stored in A->AllocBase).
Status arenaReserve(iopoly_array *A, size_t Bytes, void *&Base);
/// Returns the addresses of \p Base to the arena (PROT_NONE again); \p Name
/// (the array that had them, already closed) is kept for messages about
/// accesses to freed memory.
void arenaRelease(void *Base, size_t Bytes, const std::string &Name = "");
/// Whether \p P lies in the arena at all.
inline bool inArena(const void *P) {
  return reinterpret_cast<uintptr_t>(P) - iopoly_arena_base_ < iopoly_arena_size_;
}
/// The array whose granules hold \p P (its bytes, and the unused space
/// before and after them in its granules), or null.
inline iopoly_array *arenaOwner(const void *P) {
  uintptr_t Off = reinterpret_cast<uintptr_t>(P) - iopoly_arena_base_;
  if (Off >= iopoly_arena_size_)
    return nullptr;
  return iopoly_arena_table_[Off >> ArenaGranuleShift].load(std::memory_order_acquire);
}
/// The array \p P points into, or null (outside the arena or every array).
iopoly_array *arenaLookup(const void *P);

/// Whether \p P lies in the arena but in no array's bytes; then [Lo, Hi)
/// is the stretch around it that holds no array's bytes (looked for a few
/// granules either way). Lock-free: for lowered code probing addresses.
bool arenaGap(uintptr_t P, uintptr_t &Lo, uintptr_t &Hi);

/// The array whose bytes [P, P + Len) belong to, with the offset; null and
/// a sentence for the user otherwise ("8 bytes before the start of
/// disk-resident array 'A'", "bytes 4096..4103 of disk-resident array 'B',
/// which has 4096 bytes: past its end", "... has been freed"; an address
/// far from both of its neighbours names both).
iopoly_array *arenaResolve(uintptr_t P, size_t Len, size_t &Off, std::string &Why);

} // namespace iopoly

#endif
