//===- AllocInterpose.cpp - free and realloc of disk-resident memory -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Programs that replace malloc with iopoly_alloc keep their free() calls
// (PolyBench's POLYBENCH_FREE_ARRAY is one). libiopoly therefore defines
// free and realloc: a pointer outside the arena goes to the next definition
// (the C library's, or whichever allocator follows libiopoly in the link
// order) at the cost of one comparison; disk-resident memory is handled
// here:
//   free(p)         p must be what iopoly_alloc returned: it is released as
//                   iopoly_free does (written back, files kept);
//   realloc(p, n)   n no larger than the array: p itself (the array keeps
//                   its size); n == 0: free(p), NULL; growing: a fatal error
//                   that says how to do it (disk-resident arrays have a
//                   fixed size, their files a fixed shape).
// Any other pointer into the arena (inside an array, freed, a guard gap) is
// a fatal error naming the array and the offset. Allocators that come before
// libiopoly (LD_PRELOAD, or linked before it) take free() themselves; then
// use iopoly_free.
//
//===----------------------------------------------------------------------===//
#include "core/Array.h"
#include "memory/Arena.h"

#include "iopoly.h"

#include <dlfcn.h>

extern "C" {
// glibc's own entry points: what free/realloc mean until RTLD_NEXT is known
// (the dynamic loader and early constructors call free before that).
void __libc_free(void *);
void *__libc_realloc(void *, size_t);
}

namespace {

using FreeFn = void (*)(void *);
using ReallocFn = void *(*)(void *, size_t);
FreeFn NextFree = nullptr;
ReallocFn NextRealloc = nullptr;

__attribute__((constructor(101))) void resolveAllocator() {
  void *F = dlsym(RTLD_NEXT, "free");
  void *R = dlsym(RTLD_NEXT, "realloc");
  NextRealloc = reinterpret_cast<ReallocFn>(R);
  NextFree = reinterpret_cast<FreeFn>(F);
}

iopoly_array *ownerOrDie(void *P, const char *Call) {
  size_t Off = 0;
  std::string Why;
  iopoly_array *A = iopoly::arenaResolve(reinterpret_cast<uintptr_t>(P), 1, Off, Why);
  if (!A)
    iopoly::fatal(iopoly::format("%s(%p): %s", Call, P, Why.c_str()));
  if (Off != 0)
    iopoly::fatal(iopoly::format("%s(%p): the pointer is byte %zu of disk-resident array '%s', not its start; %s "
                                 "takes the address iopoly_alloc returned",
                                 Call, P, Off, A->Name.c_str(), Call));
  return A;
}

void freeDiskResident(void *P) {
  iopoly_array *A = ownerOrDie(P, "free");
  std::string Name = A->Name;
  if (iopoly_free(P) != 0)
    iopoly::fatal(iopoly::format("free(%p) of disk-resident array '%s': %s", P, Name.c_str(), iopoly_last_error()));
}

} // namespace

extern "C" {

IOPOLY_API void free(void *P) {
  if (iopoly_arena_size_ && iopoly::inArena(P)) {
    freeDiskResident(P);
    return;
  }
  if (NextFree)
    NextFree(P);
  else
    __libc_free(P);
}

IOPOLY_API void *realloc(void *P, size_t N) {
  if (!P || !iopoly_arena_size_ || !iopoly::inArena(P))
    return NextRealloc ? NextRealloc(P, N) : __libc_realloc(P, N);
  iopoly_array *A = ownerOrDie(P, "realloc");
  if (N == 0) {
    freeDiskResident(P);
    return nullptr;
  }
  if (N <= A->Geo.TotalBytes)
    return P;
  iopoly::fatal(iopoly::format("realloc(%p, %zu): disk-resident array '%s' has %zu bytes and cannot grow (its files "
                               "have a fixed shape); allocate a larger one with iopoly_alloc, copy, and free this one",
                               P, N, A->Name.c_str(), static_cast<size_t>(A->Geo.TotalBytes)));
}

} // extern "C"
