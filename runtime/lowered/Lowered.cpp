//===- Lowered.cpp - Runtime entry points of plugin-lowered code -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The slow paths behind the inline window test of lowered loads and stores
// (see include/iopoly/abi.h), the constructor of disk-resident globals, and memset /
// memcpy / memmove that understand disk-resident memory. Compiled code has
// no error channel, so every failure here stops the program with a message
// that names the array.
//
//===----------------------------------------------------------------------===//
#include "lowered/Lowered.h"

#include "core/Alloc.h"
#include "core/Group.h"
#include "core/Progress.h"
#include "lowered/TileWalk.h"
#include "core/Runtime.h"
#include "memory/Arena.h"

#include "iopoly/abi.h"

#include <algorithm>
#include <atomic>
#include <cstring>

using namespace iopoly;

namespace {

Runtime &runtime() {
  Runtime *RT = Runtime::existing();
  if (RT)
    return *RT;
  if (Status S = Runtime::get(RT))
    fatal(S.message());
  return *RT;
}

uintptr_t arenaBegin() { return iopoly_arena_base_; }
uintptr_t arenaEnd() { return iopoly_arena_base_ + iopoly_arena_size_; }

/// This thread's windows that hold stripes, newest first.
thread_local iopoly_window *HeldWindows = nullptr;

/// An access straddling two stripes, served from this thread's bounce
/// buffer between __iopoly_translate and __iopoly_commit.
struct Bounce {
  alignas(64) unsigned char Bytes[IOPOLY_MAX_ACCESS];
  uintptr_t Addr = 0;
  uint32_t Len = 0; ///< 0: none pending
  int Mode = 0;
};
thread_local Bounce TheBounce;

void unlinkHeld(iopoly_window *W) {
  (W->prev ? W->prev->next : HeldWindows) = W->next;
  if (W->next)
    W->next->prev = W->prev;
  W->next = W->prev = nullptr;
}

void linkHeld(iopoly_window *W) {
  W->prev = nullptr;
  W->next = HeldWindows;
  if (HeldWindows)
    HeldWindows->prev = W;
  HeldWindows = W;
}

void releaseHeld(iopoly_window *W) {
  if (W->array) {
    if (Status S = runtime().buffer().releaseRun(W->array, W->stripe, W->run))
      fatal("lowered code: " + S.message());
    unlinkHeld(W);
    W->array = nullptr;
  }
  W->limit = 0;
}

/// The buffer is full: takes the stripes back from the least recently
/// translated window of this thread that re-reads its fields before every
/// access (not \p Keep, not a strip window). False if there is none.
bool revokeOne(iopoly_window *Keep) {
  iopoly_window *Victim = nullptr;
  for (iopoly_window *W = HeldWindows; W; W = W->next)
    if (W != Keep && !(W->flags & IOPOLY_WINDOW_PINNED))
      Victim = W;
  if (!Victim)
    return false;
  releaseHeld(Victim);
  return true;
}

/// Frames the strip windows (IOPOLY_WINDOW_PINNED) leave to the windows
/// of accesses tested one by one, which the buffer can take back: with
/// every frame pinned by strips, such an access would find none. A strip
/// window that would go past this leaves its window empty instead, and its
/// strip runs checked, access by access.
constexpr size_t StripPinReserve = 4;

bool stripMayPin(StripeBuffer &Buf, const iopoly_window *W) {
  size_t Pinned = Buf.pinnedFrames(), Own = W->array ? std::min(W->run, Pinned) : 0;
  return Pinned - Own + 1 + StripPinReserve <= Buf.numFrames();
}

/// Stripes a window may hold besides its own: a run amortizes the slow
/// path over walks that change stripe often (columns), while leaving most
/// of the buffer unpinned.
size_t maxRunNeighbours() {
  static const size_t Max = [] {
    size_t Frames = runtime().config().bufferFrames();
    // Small buffers: no runs. Large ones: a run may span a whole array of
    // a few hundred MiB, so that a column walk that comes back to the top
    // finds it all in its window instead of pinning it again stripe by
    // stripe (deriche's 35 MB images: 540 stripes).
    size_t M = Frames < 64 ? 0 : Frames / 16;
    return M > 4096 ? 4096 : M;
  }();
  return Max;
}

/// Maps the window onto [Lo, Hi) in place (delta 0) without attaching
/// anything: ordinary memory, or a stretch of the arena that holds no
/// array's bytes (a probe's gap; an access that does run there faults on
/// the arena's PROT_NONE pages and is reported as out of bounds).
void *mapUnattached(iopoly_window *W, uintptr_t Lo, uintptr_t Hi, uintptr_t P) {
  releaseHeld(W);
  constexpr uintptr_t Slack = IOPOLY_MAX_ACCESS - 1;
  W->lo = Lo;
  W->limit = Hi - Lo > Slack ? Hi - Lo - Slack : 0;
  W->delta = 0;
  return reinterpret_cast<void *>(P);
}

/// Maps the window onto the ordinary memory around \p P (below or above
/// the arena) so that later accesses there stay on the fast path.
void *mapOrdinary(iopoly_window *W, uintptr_t P) {
  if (Status S = arenaInit())
    (void)S; // no arena: all memory is ordinary (base = size = 0)
  bool Below = P < arenaBegin();
  return mapUnattached(W, Below ? 0 : arenaEnd(), Below ? arenaBegin() : UINTPTR_MAX, P);
}

/// The array at \p P, with the offset of [P, P+Len) checked against it.
iopoly_array *arrayAt(uintptr_t P, size_t Len, size_t &Off, const iopoly_site *Site = nullptr) {
  std::string Why;
  iopoly_array *A = arenaResolve(P, Len, Off, Why);
  if (!A) {
    std::string Where = describeSite(Site);
    fatal(format("out-of-bounds access%s%s: %s", Where.empty() ? "" : " at ", Where.c_str(), Why.c_str()));
  }
  return A;
}

bool revokeOne(iopoly_window *Keep);

bool bufferFull(const Status &S) { return S.is(ErrorCode::BufferFull); }

/// Attaches for a slow path of its own (straddling accesses, mem ops),
/// taking stripes back from this thread's revocable windows if needed.
char *attachOrDie(iopoly_array *A, size_t Stripe, int Mode) {
  void *P = nullptr;
  Status S = runtime().buffer().attach(A, Stripe, Mode, P);
  while (bufferFull(S) && revokeOne(nullptr))
    S = runtime().buffer().attach(A, Stripe, Mode, P);
  if (S)
    fatal("lowered code: " + S.message());
  return static_cast<char *>(P);
}

void releaseOrDie(iopoly_array *A, size_t Stripe) {
  if (Status S = runtime().buffer().release(A, Stripe))
    fatal("lowered code: " + S.message());
}

/// Copies between \p Buf and bytes [Off, Off+Len) of \p A, stripe by stripe.
void copyBytes(iopoly_array *A, size_t Off, unsigned char *Buf, size_t Len, bool ToArray) {
  size_t S = A->Geo.StripeSize;
  while (Len) {
    size_t Stripe = Off / S, In = Off % S, N = std::min(Len, S - In);
    bool Whole = ToArray && In == 0 && N == A->Geo.stripeBytes(Stripe);
    char *F = attachOrDie(A, Stripe, ToArray ? (IOPOLY_WRITE | (Whole ? IOPOLY_OVERWRITE : 0)) : IOPOLY_READ);
    if (ToArray)
      std::memcpy(F + In, Buf, N);
    else
      std::memcpy(Buf, F + In, N);
    releaseOrDie(A, Stripe);
    Off += N;
    Buf += N;
    Len -= N;
  }
}

/// A run of bytes that lies in one stripe (or in ordinary memory).
struct Piece {
  char *Ptr;
  iopoly_array *A = nullptr;
  size_t Stripe = 0;
  size_t Len; ///< bytes until the stripe (or the request) ends
};

Piece resolve(uintptr_t P, size_t Len, int Mode, bool WholeStripeWrite) {
  if (!iopoly_arena_size_ || P - arenaBegin() >= iopoly_arena_size_)
    return {reinterpret_cast<char *>(P), nullptr, 0, Len};
  size_t Off;
  iopoly_array *A = arrayAt(P, Len, Off);
  size_t S = A->Geo.StripeSize, Stripe = Off / S, In = Off % S;
  size_t N = std::min(Len, A->Geo.stripeBytes(Stripe) - In);
  int M = Mode;
  if (WholeStripeWrite && In == 0 && N == A->Geo.stripeBytes(Stripe))
    M |= IOPOLY_OVERWRITE;
  return {attachOrDie(A, Stripe, M) + In, A, Stripe, N};
}

void done(const Piece &P) {
  if (P.A)
    releaseOrDie(P.A, P.Stripe);
}

/// Bytes from \p P to the end of its stripe (at most \p N); N for
/// ordinary memory.
size_t runAfter(uintptr_t P, size_t N) {
  iopoly_array *A = iopoly_arena_size_ ? arenaLookup(reinterpret_cast<void *>(P)) : nullptr;
  if (!A)
    return N;
  size_t S = A->Geo.StripeSize, Off = P - reinterpret_cast<uintptr_t>(A->AllocBase);
  return std::min(N, S - Off % S);
}

/// Bytes from the start of the stripe holding byte \p P - 1 up to \p P (at
/// most \p N); N for ordinary memory.
size_t runBefore(uintptr_t P, size_t N) {
  iopoly_array *A = iopoly_arena_size_ ? arenaLookup(reinterpret_cast<void *>(P - 1)) : nullptr;
  if (!A)
    return N;
  size_t S = A->Geo.StripeSize, Off = P - 1 - reinterpret_cast<uintptr_t>(A->AllocBase);
  return std::min(N, Off % S + 1);
}

/// Copies \p N bytes in pieces that stay within one stripe on both sides;
/// Backward walks from the end (memmove with an overlapping dst > src).
void chunkedCopy(uintptr_t D, uintptr_t S, size_t N, bool Backward) {
  while (N) {
    size_t Take = Backward ? std::min(runBefore(S + N, N), runBefore(D + N, N))
                           : std::min(runAfter(S, N), runAfter(D, N));
    uintptr_t From = Backward ? S + N - Take : S, To = Backward ? D + N - Take : D;
    Piece Src = resolve(From, Take, IOPOLY_READ, false);
    Piece Dst = resolve(To, Take, IOPOLY_WRITE, /*WholeStripeWrite=*/true);
    std::memmove(Dst.Ptr, Src.Ptr, Take);
    done(Dst);
    done(Src);
    if (!Backward) {
      D += Take;
      S += Take;
    }
    N -= Take;
  }
}

bool touchesArena(uintptr_t P, size_t N) {
  if (!iopoly_arena_size_ || !N)
    return false;
  uintptr_t B = arenaBegin(), E = arenaEnd();
  return P < E && P + N > B;
}

} // namespace

extern "C" {

void *__iopoly_translate(iopoly_window *W, void *Ptr, size_t Len, int Mode, const iopoly_site *Site) {
  uintptr_t P = reinterpret_cast<uintptr_t>(Ptr);
  bool Probe = Mode & IOPOLY_TRANSLATE_PROBE;
  Mode &= ~IOPOLY_TRANSLATE_PROBE;
  // Code built at -O0 calls here for every access, without the inline test;
  // and the inline test leaves out the last 63 bytes of a window (it does
  // not know the access's size): both are served here at once.
  if (W->limit && P - W->lo <= W->limit + (IOPOLY_MAX_ACCESS - 1) - Len)
    return reinterpret_cast<void *>(P + W->delta);
  if (!iopoly_arena_size_ || P - arenaBegin() >= iopoly_arena_size_)
    return mapOrdinary(W, P);
  SiteScope Scope(Site);
  size_t Off;
  iopoly_array *A;
  uintptr_t GapLo, GapHi;
  if (Probe) {
    // Maybe never accessed: outside every array it must not stop the
    // program (the checked path does if the access really runs).
    if (arenaGap(P, GapLo, GapHi))
      return mapUnattached(W, GapLo, GapHi, P);
    A = arenaLookup(Ptr);
    if (!A || (Off = P - reinterpret_cast<uintptr_t>(A->AllocBase)) + Len > A->Geo.TotalBytes)
      return Ptr; // runs past the array's end
  } else {
    A = arrayAt(P, Len, Off, Site);
  }
  size_t S = A->Geo.StripeSize, Stripe = Off / S, In = Off % S;
  if (In + Len > A->Geo.stripeBytes(Stripe)) {
    // A strip driver (or a probe) only looks at the window, which cannot
    // hold this access: no bounce copy, whose pending commit a later store
    // would write back.
    if (Probe || (W->flags & IOPOLY_WINDOW_PINNED))
      return Ptr;
    // Straddles two stripes: serve it from the bounce buffer.
    Bounce &B = TheBounce;
    B.Addr = P;
    B.Len = static_cast<uint32_t>(Len);
    B.Mode = Mode;
    copyBytes(A, Off, B.Bytes, Len, /*ToArray=*/false);
    return B.Bytes;
  }
  if (W->array == A && Stripe >= W->stripe && Stripe < W->stripe + W->run) // within the slack at its end
    return reinterpret_cast<void *>(P + W->delta);
  StripeBuffer &Buf = runtime().buffer();
  if ((W->flags & IOPOLY_WINDOW_PINNED) && !stripMayPin(Buf, W)) {
    releaseHeld(W);
    return Ptr;
  }
  uintptr_t Base = reinterpret_cast<uintptr_t>(A->AllocBase);
  if (W->array == A && Buf.hasViews(*A)) {
    // The same array again: grow the run over the resident stripes up to
    // this one and keep everything (a column walk that comes back to the
    // top of the array then finds it all in one window).
    size_t First = W->stripe, Count = W->run;
    if (Buf.extendRun(A, Stripe, Mode, maxRunNeighbours(), First, Count)) {
      W->stripe = First;
      W->run = Count;
      W->lo = Base + First * S;
      size_t Span = (Count - 1) * S + A->Geo.stripeBytes(First + Count - 1);
      W->limit = Span >= IOPOLY_MAX_ACCESS ? Span - (IOPOLY_MAX_ACCESS - 1) : 0;
      return Ptr;
    }
  }
  // A walk that leaves its run at one end will most likely go on that way:
  // the next run grows in that direction, twice as long as the last one.
  bool Forward = W->array == A && Stripe == W->stripe + W->run;
  bool Backward = W->array == A && Stripe + 1 == W->stripe;
  size_t Grow = W->array == A ? std::max<size_t>(2 * W->run, 4) : 4;
  // Let go of the stripes held so far and pin the new one (one lock).
  void *Frame = nullptr;
  Status E = Buf.switchAttach(W->array, W->stripe, W->run, A, Stripe, Mode, Frame);
  if (W->array) { // its old stripes are released either way
    unlinkHeld(W);
    W->array = nullptr;
    W->limit = 0;
  }
  bool Full = false;
  while ((Full = bufferFull(E)) && revokeOne(W))
    E = Buf.switchAttach(nullptr, 0, 0, A, Stripe, Mode, Frame);
  // A strip's driver only asks whether the window holds the address; left
  // empty, it runs the iteration through the checked copy instead.
  if (E && Full && (W->flags & IOPOLY_WINDOW_PINNED))
    return Ptr;
  if (E)
    fatal("lowered code: " + E.message());
  W->array = A;
  linkHeld(W);
  if (TileWalkUnit) // restructured code: hint the next unit (TileWalk.h)
    tileWalkSeen(A, Stripe);
  size_t First = Stripe, Count = 1;
  if (Buf.hasViews(*A)) {
    // The stripe is mapped at its own address: extend the window over the
    // resident neighbours and access everything in place. Pinning costs one
    // step per stripe: runs start short and double while a walk goes on.
    size_t Max = maxRunNeighbours(), G = std::min(Grow, Max);
    Buf.attachRun(A, Stripe, Mode, Forward ? 0 : Backward ? G : G / 4, Backward ? 0 : Forward ? G : G / 4, First,
                  Count);
    W->delta = 0;
  } else {
    W->delta = reinterpret_cast<intptr_t>(Frame) - static_cast<intptr_t>(Base + Stripe * S);
  }
  W->stripe = First;
  W->run = Count;
  W->lo = Base + First * S;
  size_t Span = (Count - 1) * S + A->Geo.stripeBytes(First + Count - 1);
  W->limit = Span >= IOPOLY_MAX_ACCESS ? Span - (IOPOLY_MAX_ACCESS - 1) : 0;
  return reinterpret_cast<void *>(P + W->delta);
}

void __iopoly_commit(void) {
  Bounce &B = TheBounce;
  if (!B.Len)
    return;
  if (B.Mode & IOPOLY_WRITE) {
    size_t Off;
    iopoly_array *A = arrayAt(B.Addr, B.Len, Off);
    copyBytes(A, Off, B.Bytes, B.Len, /*ToArray=*/true);
  }
  B.Len = 0;
}

void __iopoly_window_release(iopoly_window *W) { releaseHeld(W); }

void __iopoly_global_init(const char *Name, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout,
                          const void *Init, void **Slot) {
  // MPI programs (libiopoly_mpi): opened collectively at MPI_Init.
  if (deferGlobal(Name, ElemSize, NDims, Dims, Layout, Init, Slot))
    return;
  void *P = nullptr;
  if (Status S =
          allocArray(Name, ElemSize, NDims, Dims, Layout, IOPOLY_CREATE | IOPOLY_TRUNC, ArrayOrigin::Global, P))
    fatal(format("cannot create disk-resident global '%s': %s", Name, S.message().c_str()));
  iopoly_array *A = iopoly_array_of(P);
  size_t Bytes = A->Geo.TotalBytes;
  if (Init) {
    size_t S = A->Geo.StripeSize;
    const unsigned char *I = static_cast<const unsigned char *>(Init);
    for (size_t Off = 0; Off < Bytes; Off += S) {
      size_t N = std::min(S, Bytes - Off);
      // Files start zeroed: write only stripes with a non-zero initializer.
      bool Zero = std::all_of(I + Off, I + Off + N, [](unsigned char C) { return C == 0; });
      if (!Zero)
        copyBytes(A, Off, const_cast<unsigned char *>(I + Off), N, /*ToArray=*/true);
    }
  }
  *Slot = P;
}

void __iopoly_alloc_layout(void *P, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout) {
  iopoly_array *A = P ? iopoly_array_of(P) : nullptr;
  if (!A || A->AllocBase != P)
    return; // ordinary memory: no file to describe
  Geometry G;
  Status S = Geometry::make(ElemSize, NDims, Dims, Layout, A->Geo.StripeSize, A->Geo.NumDisks, G);
  if (!S && G.TotalBytes != A->Geo.TotalBytes) {
    // A larger allocation than the array: the header keeps the byte view.
    warning(format("array '%s': the compiler stores %s elements of %zu bytes in layout %s in its %zu bytes, which "
                   "its file header cannot record (the shape has %zu bytes); other programs see its bytes as stored",
                   A->Name.c_str(), G.dimsString().c_str(), ElemSize, G.layoutString().c_str(), A->Geo.TotalBytes,
                   G.TotalBytes));
    return;
  }
  if (!S)
    S = recordShape(*A, G);
  if (S)
    fatal(S.message());
}

void __iopoly_check_striping(size_t Stripe, size_t Disks, const char *Module) {
  const Config &C = runtime().config();
  if (C.StripeSize == Stripe && C.numDisks() == Disks)
    return;
  static std::atomic<bool> Warned{false};
  if (Warned.exchange(true))
    return;
  warning(format("'%s' was optimized for %zu-byte stripes on %zu disks, but this run uses IOPOLY_STRIPE=%zu on %zu "
                 "disks: results are the same, the I/O savings may not be",
                 Module, Stripe, Disks, C.StripeSize, C.numDisks()));
}

void __iopoly_memset(void *Dst, int Value, size_t N) {
  uintptr_t D = reinterpret_cast<uintptr_t>(Dst);
  if (!touchesArena(D, N)) {
    std::memset(Dst, Value, N);
    return;
  }
  while (N) {
    Piece P = resolve(D, N, IOPOLY_WRITE, /*WholeStripeWrite=*/true);
    std::memset(P.Ptr, Value, P.Len);
    done(P);
    D += P.Len;
    N -= P.Len;
  }
}

void __iopoly_memcpy(void *Dst, const void *Src, size_t N) {
  uintptr_t D = reinterpret_cast<uintptr_t>(Dst), S = reinterpret_cast<uintptr_t>(Src);
  if (!touchesArena(D, N) && !touchesArena(S, N)) {
    std::memcpy(Dst, Src, N);
    return;
  }
  chunkedCopy(D, S, N, /*Backward=*/false);
}

void __iopoly_memmove(void *Dst, const void *Src, size_t N) {
  uintptr_t D = reinterpret_cast<uintptr_t>(Dst), S = reinterpret_cast<uintptr_t>(Src);
  if (!touchesArena(D, N) && !touchesArena(S, N)) {
    std::memmove(Dst, Src, N);
    return;
  }
  chunkedCopy(D, S, N, /*Backward=*/D > S && D < S + N);
}

} // extern "C"

namespace iopoly {

void releaseAllThreadWindows() {
  for (iopoly_window *W = HeldWindows; W;) {
    iopoly_window *Next = W->next;
    releaseHeld(W);
    W = Next;
  }
}

void releaseThreadWindows(const iopoly_array *A) {
  for (iopoly_window *W = HeldWindows; W;) {
    iopoly_window *Next = W->next;
    if (W->array == A)
      releaseHeld(W);
    W = Next;
  }
}

} // namespace iopoly
