//===- CApi.cpp - The extern "C" functions of iopoly.h ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Thin wrappers: check arguments, call into the runtime, turn a failed
// Status into NULL/-1 plus iopoly_last_error(). Every message names the
// function and the array. Nothing escapes: every entry point runs inside
// guarded(), which turns an exception (std::bad_alloc from an absurd size,
// say) into an error return, never a throw through C or an abort.
//
//===----------------------------------------------------------------------===//
#include "iopoly.h"

#include "lowered/Lowered.h"
#include "memory/Arena.h"
#include "core/Runtime.h"
#include "core/Seeker.h"
#include "core/Alloc.h"
#include "core/Group.h"

#include <exception>
#include <new>
#include <type_traits>

using namespace iopoly;

namespace {

template <typename T> T fail(const std::string &Msg, T Value) {
  setLastError(Msg);
  verbose(Msg);
  return Value;
}

/// Runs \p Body; an exception becomes \p Failed with an error naming
/// \p Fn (setLastError does not throw: it falls back to a fixed text).
template <typename Body>
std::invoke_result_t<Body> guarded(const char *Fn, std::invoke_result_t<Body> Failed, Body B) noexcept {
  try {
    return B();
  } catch (const std::bad_alloc &) {
    setLastError(std::string(Fn) + ": out of memory");
  } catch (const std::exception &E) {
    setLastError(std::string(Fn) + ": internal error: " + E.what());
  } catch (...) {
    setLastError(std::string(Fn) + ": internal error");
  }
  return Failed;
}

/// Index returned by functions of type size_t on error.
constexpr size_t BadIndex = static_cast<size_t>(-1);

/// The runtime, or null with the configuration error recorded.
Runtime *runtimeOrError(const char *Fn) {
  Runtime *RT = nullptr;
  if (Status S = Runtime::get(RT)) {
    setLastError(format("%s: %s", Fn, S.message().c_str()));
    return nullptr;
  }
  return RT;
}

/// Validates a handle; returns false with an error naming \p Fn.
bool liveArray(const iopoly_array *A, const char *Fn) {
  if (!A) {
    setLastError(format("%s: array handle is NULL", Fn));
    return false;
  }
  if (!A->live()) {
    setLastError(format("%s: handle %p is not an open array (used after iopoly_close?)", Fn,
                        static_cast<const void *>(A)));
    return false;
  }
  return true;
}

bool blockInRange(const iopoly_array *A, size_t Block, const char *Fn) {
  // On the attach/release fast path: a multiplication, not numStripes()'s
  // division (an eighth of an attach+release pair).
  size_t Offset;
  if (!__builtin_mul_overflow(Block, A->Geo.StripeSize, &Offset) && Offset < A->Geo.TotalBytes)
    return true;
  setLastError(format("%s: block %zu of array '%s' is out of range (the array has %zu blocks of %zu bytes)", Fn,
                      Block, A->Name.c_str(), A->Geo.numStripes(), A->Geo.StripeSize));
  return false;
}

} // namespace

namespace iopoly {

Status allocArray(const char *Name, size_t Bytes, int Flags, ArrayOrigin Origin, void *&Out) {
  size_t Dims[1] = {Bytes};
  return allocArray(Name, 1, 1, Dims, nullptr, Flags, Origin, Out);
}

Status allocArray(const char *Name, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout, int Flags,
                  ArrayOrigin Origin, void *&Out) {
  const char *Shown = Name ? Name : "(null)";
  size_t Bytes = ElemSize;
  for (int K = 0; K < NDims; ++K)
    if (__builtin_mul_overflow(Bytes, Dims[K], &Bytes))
      return Status::error(ErrorCode::TooLarge, format("array '%s': its size overflows 64 bits", Shown));
  if (Bytes == 0 || NDims < 1)
    return Status::error(ErrorCode::InvalidArgument, format("array '%s': size is 0", Shown));
  Runtime *RT = nullptr;
  if (Status S = Runtime::get(RT))
    return S;
  // Checked before any file is created: the arena must be able to hold it.
  if (Status S = arenaInit())
    return Status::wrap(S, format("array '%s': %s", Shown, S.message().c_str()));
  if (Bytes > iopoly_arena_size_)
    return Status::error(ErrorCode::TooLarge,
                         format("array '%s': %zu bytes are more than the disk-resident address space (%zu bytes)",
                                Shown, Bytes, static_cast<size_t>(iopoly_arena_size_)));
  // iopoly_alloc in an MPI program, after MPI_Init: one array the ranks
  // with the same disk directories share, as a disk-resident global is
  // (collective, like every open of a shared array).
  std::shared_ptr<Group> Shared;
  if (MpiGlue *Glue = mpiGlue(); Origin == ArrayOrigin::Alloc && Glue && Glue->active())
    Shared = Glue->dataGroup();
  iopoly_array *A = nullptr;
  if (Status S = RT->open(Name, ElemSize, NDims, Dims, Layout, Flags, A, Origin, Shared))
    return S;
  void *Base = nullptr;
  if (Status S = arenaReserve(A, Bytes, Base)) {
    (void)RT->close(A);
    return Status::wrap(S, format("array '%s': %s", Shown, S.message().c_str()));
  }
  A->AllocBase = Base;
  Out = Base;
  return {};
}

} // namespace iopoly

extern "C" {

const char *iopoly_last_error(void) { return lastError(); }

iopoly_array *iopoly_open(const char *name, size_t elem_size, int ndims, const size_t dims[], int flags) {
  return iopoly_open_layout(name, elem_size, ndims, dims, nullptr, flags);
}

iopoly_array *iopoly_open_layout(const char *name, size_t elem_size, int ndims, const size_t dims[],
                                 const int layout[], int flags) {
  return guarded("iopoly_open", nullptr, [&]() -> iopoly_array * {
    clearLastError();
    Runtime *RT = runtimeOrError("iopoly_open");
    if (!RT)
      return nullptr;
    iopoly_array *A = nullptr;
    if (Status S = RT->open(name, elem_size, ndims, dims, layout, flags, A))
      return fail<iopoly_array *>("iopoly_open: " + S.message(), nullptr);
    return A;
  });
}

int iopoly_close(iopoly_array *a) {
  return guarded("iopoly_close", -1, [&]() -> int {
    clearLastError();
    Runtime *RT = Runtime::existing();
    if (!a)
      return fail("iopoly_close: array handle is NULL", -1);
    if (!RT || !RT->isOpen(a))
      return fail(format("iopoly_close: handle %p is not an open array (closed twice?)", static_cast<void *>(a)), -1);
    if (a->AllocBase)
      return fail(format("iopoly_close: array '%s' belongs to iopoly_alloc memory; use iopoly_free", a->Name.c_str()),
                  -1);
    std::string Name = a->Name;
    if (Status S = RT->close(a))
      return fail(format("iopoly_close: array '%s': %s", Name.c_str(), S.message().c_str()), -1);
    return 0;
  });
}

int iopoly_flush(iopoly_array *a) {
  return guarded("iopoly_flush", -1, [&]() -> int {
    clearLastError();
    Runtime *RT = runtimeOrError("iopoly_flush");
    if (!RT)
      return -1;
    if (a && !RT->isOpen(a))
      return fail(format("iopoly_flush: handle %p is not an open array", static_cast<void *>(a)), -1);
    if (Status S = RT->flush(a))
      return fail("iopoly_flush: " + S.message(), -1);
    return 0;
  });
}

size_t iopoly_block_size(void) {
  return guarded("iopoly_block_size", size_t(0), [&]() -> size_t {
    Runtime *RT = runtimeOrError("iopoly_block_size");
    return RT ? RT->config().StripeSize : 0;
  });
}

size_t iopoly_num_disks(void) {
  return guarded("iopoly_num_disks", size_t(0), [&]() -> size_t {
    Runtime *RT = runtimeOrError("iopoly_num_disks");
    return RT ? RT->config().numDisks() : 0;
  });
}

size_t iopoly_buffer_blocks(void) {
  return guarded("iopoly_buffer_blocks", size_t(0), [&]() -> size_t {
    Runtime *RT = runtimeOrError("iopoly_buffer_blocks");
    return RT ? RT->config().bufferFrames() : 0;
  });
}

size_t iopoly_num_blocks(const iopoly_array *a) {
  return guarded("iopoly_num_blocks", size_t(0), [&]() -> size_t {
    return liveArray(a, "iopoly_num_blocks") ? a->Geo.numStripes() : 0;
  });
}

size_t iopoly_array_bytes(const iopoly_array *a) {
  return guarded("iopoly_array_bytes", size_t(0), [&]() -> size_t {
    return liveArray(a, "iopoly_array_bytes") ? a->Geo.TotalBytes : 0;
  });
}

const char *iopoly_array_name(const iopoly_array *a) {
  return guarded("iopoly_array_name", nullptr, [&]() -> const char * {
    return liveArray(a, "iopoly_array_name") ? a->Name.c_str() : nullptr;
  });
}

size_t iopoly_block_disk(const iopoly_array *a, size_t block) {
  return guarded("iopoly_block_disk", size_t(0), [&]() -> size_t {
    return liveArray(a, "iopoly_block_disk") ? a->Geo.diskOf(block) : 0;
  });
}

size_t iopoly_offset(const iopoly_array *a, const size_t index[]) {
  return guarded("iopoly_offset", BadIndex, [&]() -> size_t {
    if (!liveArray(a, "iopoly_offset"))
      return BadIndex;
    if (!index)
      return fail(format("iopoly_offset: array '%s': the index array is NULL", a->Name.c_str()), BadIndex);
    for (size_t D = 0; D < a->Geo.Dims.size(); ++D)
      if (index[D] >= a->Geo.Dims[D])
        return fail(format("iopoly_offset: index %zu of dimension %zu is out of range for array '%s' (extent %zu)",
                           index[D], D, a->Name.c_str(), a->Geo.Dims[D]),
                    BadIndex);
    return a->Geo.elementOffset(index);
  });
}

void *iopoly_attach(iopoly_array *a, size_t block, int mode) {
  return guarded("iopoly_attach", nullptr, [&]() -> void * {
    if (!liveArray(a, "iopoly_attach") || !blockInRange(a, block, "iopoly_attach"))
      return nullptr;
    if ((mode & ~(IOPOLY_READ | IOPOLY_WRITE | IOPOLY_OVERWRITE)) || !(mode & (IOPOLY_READ | IOPOLY_WRITE)) ||
        ((mode & IOPOLY_OVERWRITE) && !(mode & IOPOLY_WRITE)))
      return fail<void *>(format("iopoly_attach: invalid mode 0x%x for array '%s' (IOPOLY_READ and/or IOPOLY_WRITE; "
                                 "OVERWRITE needs WRITE)",
                                 mode, a->Name.c_str()),
                          nullptr);
    if ((mode & IOPOLY_WRITE) && !a->Writable)
      return fail<void *>(format("iopoly_attach: array '%s' is open read-only; cannot attach block %zu for writing",
                                 a->Name.c_str(), block),
                          nullptr);
    Runtime *RT = Runtime::existing();
    void *P = nullptr;
    if (Status S = RT->buffer().attach(a, block, mode, P))
      return fail<void *>("iopoly_attach: " + S.message(), nullptr);
    return P;
  });
}

int iopoly_release(iopoly_array *a, size_t block) {
  return guarded("iopoly_release", -1, [&]() -> int {
    if (!liveArray(a, "iopoly_release") || !blockInRange(a, block, "iopoly_release"))
      return -1;
    if (Status S = Runtime::existing()->buffer().release(a, block))
      return fail("iopoly_release: " + S.message(), -1);
    return 0;
  });
}

int iopoly_prefetch(iopoly_array *a, size_t block) {
  return guarded("iopoly_prefetch", -1, [&]() -> int {
    if (!liveArray(a, "iopoly_prefetch") || !blockInRange(a, block, "iopoly_prefetch"))
      return -1;
    bool Taken = false;
    if (Status S = Runtime::existing()->buffer().prefetch(a, block, Taken))
      return fail("iopoly_prefetch: " + S.message(), -1);
    return Taken ? 0 : 1;
  });
}

iopoly_seeker *iopoly_seeker_open(iopoly_array *a, size_t nsteps, iopoly_step_fn steps, void *ctx,
                                  size_t max_blocks_per_step, size_t lookahead, int mode) {
  return guarded("iopoly_seeker_open", nullptr, [&]() -> iopoly_seeker * {
    if (!liveArray(a, "iopoly_seeker_open"))
      return nullptr;
    if (!steps || max_blocks_per_step == 0)
      return fail<iopoly_seeker *>(
          format("iopoly_seeker_open: array '%s': a step function and max_blocks_per_step > 0 are required",
                 a->Name.c_str()),
          nullptr);
    if ((mode & IOPOLY_WRITE) && !a->Writable)
      return fail<iopoly_seeker *>(format("iopoly_seeker_open: array '%s' is open read-only", a->Name.c_str()), nullptr);
    if (mode & IOPOLY_OVERWRITE)
      return fail<iopoly_seeker *>("iopoly_seeker_open: IOPOLY_OVERWRITE is not supported by the seeker", nullptr);
    return new (std::nothrow) iopoly_seeker(Runtime::existing()->buffer(), a, nsteps, steps, ctx, max_blocks_per_step,
                                            lookahead, mode ? mode : IOPOLY_READ);
  });
}

long iopoly_seeker_next(iopoly_seeker *s) {
  return guarded("iopoly_seeker_next", -1L, [&]() -> long {
    clearLastError();
    if (!s)
      return fail("iopoly_seeker_next: seeker is NULL", -1L);
    Status E;
    long Step = s->next(E);
    if (E)
      return fail("iopoly_seeker_next: " + E.message(), -1L);
    return Step;
  });
}

void *iopoly_seeker_block(iopoly_seeker *s, size_t block) {
  return guarded("iopoly_seeker_block", nullptr, [&]() -> void * {
    if (!s)
      return fail<void *>("iopoly_seeker_block: seeker is NULL", nullptr);
    void *P = nullptr;
    if (Status E = s->block(block, P))
      return fail<void *>("iopoly_seeker_block: " + E.message(), nullptr);
    return P;
  });
}

int iopoly_seeker_close(iopoly_seeker *s) {
  return guarded("iopoly_seeker_close", -1, [&]() -> int {
    if (!s)
      return 0;
    Status E = s->close();
    delete s;
    if (E)
      return fail("iopoly_seeker_close: " + E.message(), -1);
    return 0;
  });
}

void *iopoly_alloc(const char *name, size_t bytes) { return iopoly_alloc_flags(name, bytes, IOPOLY_CREATE); }

void *iopoly_alloc_flags(const char *name, size_t bytes, int flags) {
  return guarded("iopoly_alloc", nullptr, [&]() -> void * {
    clearLastError();
    if (flags != IOPOLY_CREATE && flags != (IOPOLY_CREATE | IOPOLY_TRUNC))
      return fail<void *>(format("iopoly_alloc: flags 0x%x must be IOPOLY_CREATE, optionally | IOPOLY_TRUNC", flags),
                          nullptr);
    void *P = nullptr;
    if (Status S = allocArray(name, bytes, flags, ArrayOrigin::Alloc, P))
      return fail<void *>("iopoly_alloc: " + S.message(), nullptr);
    return P;
  });
}

void *iopoly_alloc_elems(const char *name, size_t count, size_t elem_size, int flags) {
  return guarded("iopoly_alloc_elems", nullptr, [&]() -> void * {
    clearLastError();
    const char *Shown = name ? name : "(null)";
    size_t Bytes = 0;
    if (count == 0 || elem_size == 0)
      return fail<void *>(format("iopoly_alloc_elems: array '%s': %zu elements of %zu bytes is no memory", Shown,
                                 count, elem_size),
                          nullptr);
    if (__builtin_mul_overflow(count, elem_size, &Bytes))
      return fail<void *>(format("iopoly_alloc_elems: array '%s': %zu elements of %zu bytes overflow 64 bits", Shown,
                                 count, elem_size),
                          nullptr);
    void *P = iopoly_alloc_flags(name, Bytes, flags);
    if (!P || elem_size == 1)
      return P;
    iopoly_array *A = arenaLookup(P);
    Geometry G;
    Status S = Geometry::make(elem_size, 1, &count, nullptr, A->Geo.StripeSize, A->Geo.NumDisks, G);
    if (!S)
      S = recordShape(*A, G, /*ElementsOnly=*/true);
    if (S) {
      std::string Msg = "iopoly_alloc_elems: " + S.message();
      (void)iopoly_free(P);
      return fail<void *>(Msg, nullptr);
    }
    return P;
  });
}

int iopoly_free(void *p) {
  return guarded("iopoly_free", -1, [&]() -> int {
    clearLastError();
    if (!p)
      return 0;
    iopoly_array *A = arenaLookup(p);
    if (!A || A->AllocBase != p)
      return fail(format("iopoly_free: %p is not the start of iopoly_alloc memory", p), -1);
    Runtime *RT = Runtime::existing();
    std::string Name = A->Name;
    size_t Bytes = A->Geo.TotalBytes;
    releaseThreadWindows(A); // lowered code of this thread may still hold stripes
    if (Status S = RT->close(A))
      return fail(format("iopoly_free: array '%s': %s", Name.c_str(), S.message().c_str()), -1);
    arenaRelease(p, Bytes, Name);
    return 0;
  });
}

iopoly_array *iopoly_array_of(const void *p) { return arenaLookup(p); }

void *iopoly_array_base(const iopoly_array *a) { return liveArray(a, "iopoly_array_base") ? a->AllocBase : nullptr; }

int iopoly_write_stats(const char *path) {
  return guarded("iopoly_write_stats", -1, [&]() -> int {
    clearLastError();
    if (!path || !*path)
      return fail("iopoly_write_stats: path is empty", -1);
    Runtime *RT = runtimeOrError("iopoly_write_stats");
    if (!RT)
      return -1;
    if (Status S = RT->writeStats(path))
      return fail("iopoly_write_stats: " + S.message(), -1);
    return 0;
  });
}

void iopoly_reset_stats(void) {
  (void)guarded("iopoly_reset_stats", 0, [&]() -> int {
    if (Runtime *RT = Runtime::existing())
      RT->resetStats();
    return 0;
  });
}

void iopoly_get_counters(iopoly_counters *out) {
  (void)guarded("iopoly_get_counters", 0, [&]() -> int {
    if (!out)
      return 0;
    *out = iopoly_counters{};
    if (Runtime *RT = Runtime::existing())
      RT->counters(&out->stripe_fetches, &out->distinct_stripes, &out->buffer_hits, &out->evictions, &out->writebacks,
                   &out->bytes_read, &out->bytes_written, &out->io_seconds, &out->modeled_io_seconds);
    return 0;
  });
}

} // extern "C"
