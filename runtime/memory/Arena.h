//===- Arena.h - Address space of iopoly_alloc memory -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// iopoly_alloc hands out addresses inside one large PROT_NONE reservation
// (the arena). Nothing is ever mapped there, so:
//  - code compiled with the plugin turns an address into (array, offset)
//    with one subtraction and one table load (granules of 1 GiB), and
//    pointers outside the arena are ordinary memory;
//  - any other access faults, and the SIGSEGV handler names the array and
//    stops the program, so it can never corrupt data silently.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_ARENA_H
#define IOPOLY_RUNTIME_ARENA_H

#include "core/Error.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

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
/// Reserves \p Bytes of addresses for \p A; returns the base.
Status arenaReserve(iopoly_array *A, size_t Bytes, void *&Base);
/// Returns the addresses of \p Base to the arena.
void arenaRelease(void *Base, size_t Bytes);
/// The array owning \p P, or null.
inline iopoly_array *arenaLookup(const void *P) {
  uintptr_t Off = reinterpret_cast<uintptr_t>(P) - iopoly_arena_base_;
  if (Off >= iopoly_arena_size_)
    return nullptr;
  return iopoly_arena_table_[Off >> ArenaGranuleShift].load(std::memory_order_acquire);
}

} // namespace iopoly

#endif
