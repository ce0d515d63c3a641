//===- StripeBuffer.h - The LRU stripe buffer with pinning ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One buffer of IOPOLY_BUFFER bytes, cut into frames of one stripe, shared
// by every array (paper 1, section 2: all disks share the buffer of the
// compute node). Replacement is LRU over unpinned frames, ordered by the
// time a frame last became unpinned (its last release, or its prefetch).
// Comanche semantics (paper 3, section 2): a pinned (attached) frame is
// never evicted; when every frame is pinned an attach fails with an error
// instead of waiting or evicting.
//
// Frame life cycle:  Free -> Loading -> Ready (clean or dirty)
//                    Ready(dirty, evicted) -> Writing -> Loading -> Ready
// While a dirty victim is written back, the frame answers lookups of its
// old stripe (which wait) and of its new stripe (which wait), so a stripe is
// never fetched twice and never read from disk before its write-back lands.
// Counters, trace events and the disk model are updated when a request is
// issued, under the lock, in program order: they are deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_STRIPEBUFFER_H
#define IOPOLY_RUNTIME_STRIPEBUFFER_H

#include "core/Array.h"
#include "core/SpillStore.h"
#include "io/DiskModel.h"
#include "memory/FrameMemory.h"
#include "io/IOWorkers.h"
#include "core/Stats.h"
#include "io/StripeIO.h"
#include "core/Trace.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace iopoly {

enum class FrameState : unsigned char { Free, Loading, Ready, Writing };

struct Frame {
  char *Data = nullptr;
  size_t Index = 0; ///< position in the buffer memory (FrameMemory::frame)
  iopoly_array *Owner = nullptr; ///< array of the stripe held or arriving
  size_t Stripe = 0;
  iopoly_array *OldOwner = nullptr; ///< stripe being written back (Writing)
  size_t OldStripe = 0;
  unsigned Pins = 0;
  FrameState State = FrameState::Free;
  bool Dirty = false;
  bool WriteHeld = false;  ///< attached for writing since it was last unpinned
  bool Flushing = false;   ///< a flush is writing it (state stays Ready)
  bool Prefetched = false; ///< fetched by a hint, not attached since
  bool WrittenAhead = false; ///< clean because of a write-behind (counts a change after it)
  double WrittenAt = 0;      ///< modeled completion of that write: the frame takes no new stripe before
  /// Shared arrays: the stripe's bytes when it became dirty; the bytes
  /// that differ now are the ones this rank wrote, and only those are
  /// written back, so that ranks writing other bytes of the stripe are not
  /// overwritten. Null when clean, or when WholeDirty.
  char *Twin = nullptr;
  bool WholeDirty = false;  ///< shared arrays: every byte is written (OVERWRITE)
  bool TwinPending = false; ///< pinned ahead for writing: twin when the read lands
  double ReadyAt = 0;      ///< modeled completion of its fetch
  Frame *Prev = nullptr, *Next = nullptr;
  bool InLru = false;
  ViewState View = ViewState::None; ///< mapping at the stripe's arena address

  bool holds(const iopoly_array *A, size_t S) const {
    return Owner == A && Stripe == S;
  }
};

/// What the buffer needs from the rest of the runtime.
struct BufferEnv {
  size_t StripeSize;
  size_t NumFrames;
  bool PrefetchEnabled;
  Stats &Counters;
  DiskModel &Model;
  TraceWriter &Trace;
  IOWorkers &Workers;
  StripeIO &IO;
  /// Opens a disk-resident global still waiting for MPI_Init (Runtime);
  /// null: there are none.
  std::function<Status(iopoly_array *)> OpenPending = nullptr;
  /// Where the private spill file of shared arrays goes (SpillStore.h).
  std::string SpillDir = ".";
  /// Write-behind: each eviction starts writing back dirty stripes next in
  /// line for eviction, so that a later fetch finds a clean frame.
  bool WriteBehind = false;
};

/// \p Runs (offsets within a stripe whose first byte is byte \p StripeStart
/// of the array, in order), two runs joined into one when the bytes between
/// them lie in the elements (\p ElemSize bytes) of the two runs' ends: a
/// rank that changed bytes of an element wrote the element, so the bytes
/// between are its own too, and a stripe's runs of a loop that wrote
/// consecutive elements (doubles over zeros differ in a few bytes each)
/// become one transfer. Elements of one byte (iopoly_alloc's untyped
/// arrays) join nothing.
std::vector<IoRun> joinWithinElements(std::vector<IoRun> Runs, size_t ElemSize, uint64_t StripeStart);

class StripeBuffer {
public:
  /// Reserves the buffer's memory (address space only: frames are set up
  /// when first used, so memory follows what is used, not IOPOLY_BUFFER).
  /// A buffer that could not be reserved reports it through status().
  explicit StripeBuffer(const BufferEnv &Env);
  ~StripeBuffer();
  StripeBuffer(const StripeBuffer &) = delete;
  StripeBuffer &operator=(const StripeBuffer &) = delete;

  /// Pins stripe \p S of \p A (fetching it unless \p Mode has OVERWRITE)
  /// and returns its frame data in \p Out.
  Status attach(iopoly_array *A, size_t S, int Mode, void *&Out);
  /// Unpins a stripe pinned by attach.
  Status release(iopoly_array *A, size_t S);
  /// Releases stripes [OldFirst, OldFirst + OldCount) of OldA (if OldA),
  /// then attaches S of A, taking the lock once when S is resident: the
  /// slow path of compiled code moving on.
  Status switchAttach(iopoly_array *OldA, size_t OldFirst, size_t OldCount, iopoly_array *A, size_t S, int Mode,
                      void *&Out);
  /// With S of A attached: also attaches the resident neighbours of S, up
  /// to \p Max on each side, that compiled code can use in place (views
  /// mapped; for writing, only stripes already dirty, so that no clean
  /// stripe is written back for nothing). Returns the run [First,
  /// First + Count), which contains S; every stripe of it is attached once.
  void attachRun(iopoly_array *A, size_t S, int Mode, size_t MaxBefore, size_t MaxAfter, size_t &First,
                 size_t &Count);
  /// With [First, First + Count) of A attached by attachRun: attaches what
  /// lies between that run and stripe \p S too, if every stripe there can
  /// be used in place (as for attachRun) and the whole run stays within
  /// \p Max stripes; then grows it further beyond S, by as many stripes as
  /// it had (a walk that keeps going needs ever fewer calls). False, with
  /// nothing changed, when it cannot.
  bool extendRun(iopoly_array *A, size_t S, int Mode, size_t Max, size_t &First, size_t &Count);
  /// Releases [First, First + Count) of A under one lock.
  Status releaseRun(iopoly_array *A, size_t First, size_t Count);
  /// Whether stripes of \p A are mapped at their own addresses.
  bool hasViews(const iopoly_array &A) const { return Memory.hasViews(A); }
  /// Starts a background fetch; \p Taken is false when the hint is dropped.
  Status prefetch(iopoly_array *A, size_t S, bool &Taken);
  /// Attach ahead (the seeker of paper 3, section 3): pins stripe \p S
  /// like attach but fetches it in the background and returns at once.
  /// \p Pinned is false when every frame is attached (nothing is done).
  Status pinAhead(iopoly_array *A, size_t S, int Mode, bool &Pinned);
  /// Waits until a stripe pinned by pinAhead has arrived; its data.
  Status waitReady(iopoly_array *A, size_t S, void *&Out);
  /// Writes back the dirty stripes of \p A (all arrays when null), waiting
  /// for write-backs in flight; does not sync the files.
  Status flush(iopoly_array *A);
  /// Prepares \p A for closing: fails while any of its stripes is pinned,
  /// waits for its fetches in flight, writes back and forgets its stripes.
  Status drop(iopoly_array *A);

  /// Whether the buffer memory could be reserved (else the reason).
  const Status &status() const { return Memory.status(); }

  /// Copies of the stripes of \p A still dirty (their useful bytes), for
  /// the rescue file of a failed exit (core/Rescue.h).
  std::vector<std::pair<size_t, std::string>> dirtyStripes(const iopoly_array *A);
  /// Sync point of a shared array, first step: waits until no stripe of
  /// \p A is in transit, then takes the bytes this rank changed out of
  /// the buffer, per disk as (file offset, length) runs in file order with
  /// their bytes packed in \p Bytes[disk]. The stripes become clean
  /// (stripes attached for writing stay dirty, against a new twin).
  Status takeDirtyRuns(iopoly_array *A, std::vector<std::vector<IoRun>> &Runs,
                       std::vector<std::string> &Bytes);
  /// Second step, after every rank's runs are on disk: forgets the
  /// unpinned stripes of \p A (another rank may have changed them) and
  /// returns the pinned ones, which the caller reads again in place.
  /// Only stripes on disks in \p Changed (some rank wrote them) go.
  void dropAfterSync(iopoly_array *A, const std::vector<bool> &Changed,
                     std::vector<std::pair<size_t, char *>> &Pinned);
  /// A sync point of \p A where nobody had changed anything.
  void countSync(iopoly_array *A);
  /// Third step: the pinned stripes were read again; those attached for
  /// writing take a new twin.
  void rereadDone(iopoly_array *A);

  /// Inside a distributed loop (true) a dirty stripe of a shared array
  /// that is evicted is written to the shared files; outside (false) it
  /// goes to this rank's private spill until the next sync point
  /// (SpillStore.h).
  void setSharedWriteThrough(bool On) { SharedWriteThrough.store(On, std::memory_order_relaxed); }

  /// Number of pins held on stripes of \p A (all arrays when null).
  size_t pinCount(const iopoly_array *A);
  /// Capacity in frames (IOPOLY_BUFFER / stripe).
  size_t numFrames() const { return Env.NumFrames; }
  /// Frames with at least one pin (the runs' budget; for tests).
  size_t pinnedFrames() {
    std::lock_guard<std::mutex> G(Mu);
    return PinnedFrames;
  }

  /// Runs \p F under the buffer lock (for stats and the model).
  template <typename Fn> auto locked(Fn F) {
    std::lock_guard<std::mutex> L(Mu);
    return F();
  }

private:
  using Lock = std::unique_lock<std::mutex>;

  /// A replacement in progress: the frame, its new identity, and what the
  /// I/O part must do.
  struct Replacement {
    Frame *F = nullptr;
    iopoly_array *A = nullptr;
    size_t S = 0;
    bool WriteBack = false;  ///< old identity was dirty
    std::vector<IoRun> Runs; ///< shared array: the bytes to write back
    bool SkipRead = false;   ///< OVERWRITE: zero instead of reading
    double ReadService = 0;  ///< modeled service times
    double WriteService = 0;
    /// What the new stripe's arrival was counted as (undone if it fails).
    enum { Fetch, ZeroFill, Overwrite, FromSpill } Arrival = Fetch;
    bool ToSpill = false;      ///< the old stripe goes to the private spill
    uint64_t OutSlot = 0;      ///< its slot there
    bool OutWhole = false;     ///< that slot holds no twin
    uint64_t InSlot = 0;       ///< the new stripe's slot (Arrival FromSpill)
    bool InWhole = false;
    /// Write-behinds begun with this replacement (counted and modeled
    /// under the lock); the caller hands them to the I/O threads once it
    /// has let go of the lock (startCleans).
    struct Clean {
      Frame *F;
      iopoly_array *A;
      size_t S;
      double Service;
    };
    std::vector<Clean> Cleans;
  };
  /// Takes back the counters of an arrival that did not happen.
  void undoArrival(const Replacement &R);

  Status takeVictim(Lock &L, bool Wait, Frame *&V);
  /// Whether stripe \p T of \p A can join a run used in place: resident by
  /// the model's clock (a read the model says has landed is waited for),
  /// views mapped, and dirty already when \p Write. Sets *\p Waited when it
  /// released the lock to wait.
  bool usableInPlace(Lock &L, iopoly_array *A, size_t T, bool Write, bool *Waited = nullptr);
  Replacement beginReplace(Frame *V, iopoly_array *A, size_t S, bool Pin,
                           bool SkipRead, bool IsPrefetch);
  Status runReplace(const Replacement &R); ///< called without the lock
  /// Write-behind (lock held, at an eviction): marks up to two dirty
  /// stripes among the next frames LRU would evict as being written back
  /// (Flushing), counts and models their writes, and lists them in \p R.
  void beginCleans(Replacement &R);
  /// Hands the frames of R.Cleans to the I/O threads; called without the
  /// lock (inline workers run the job on the spot).
  void startCleans(const Replacement &R);
  /// The I/O thread's part of a write-behind.
  void runClean(const Replacement::Clean &C);
  /// The old stripe of \p R could not leave (its write failed): the frame
  /// keeps it, still dirty, and the new stripe is not brought in. Lock held.
  void revertToOldStripe(const Replacement &R);
  void runAsync(const Replacement &R);     ///< on an I/O thread
  void lruUnlink(Frame *F);
  void lruPushBack(Frame *F);
  void lruPushFront(Frame *F);
  void trace(uint8_t Kind, const iopoly_array *A, size_t S);
  Status bufferFullError(const iopoly_array *A, size_t S);
  Status writeBackLocked(Lock &L, Frame *F);
  Status releaseLocked(iopoly_array *A, size_t S);
  /// Maps, protects or keeps the view of F's stripe to match its state.
  void syncView(Frame *F);
  /// Unmaps the view of F's current stripe (before F changes identity).
  void dropView(Frame *F);
  /// Pins a resident, Ready frame (hit bookkeeping included).
  void pinHit(Frame *F, const iopoly_array *A, size_t S, bool Write);
  /// Marks F dirty; for a shared array, keeps a twin of its bytes first
  /// (or notes that every byte is written, \p Whole).
  void markDirty(Frame *F, bool Whole);
  void freeTwin(Frame *F);
  Status openIfPending(iopoly_array *A);
  /// The runs of F's bytes that differ from its twin (all of it when
  /// there is none), as offsets within the stripe, joined within the
  /// elements this rank wrote (joinWithinElements).
  std::vector<IoRun> dirtyRuns(const Frame *F) const {
    return joinWithinElements(dirtyRuns(F->Data, F->Twin), F->Owner->elementBytes(), F->Stripe * Env.StripeSize);
  }
  std::vector<IoRun> dirtyRuns(const char *Data, const char *Twin) const;
  /// Spill slot bookkeeping in the disk model and counters.
  double modelSpill(size_t Bytes, uint64_t Slot, bool Write, double Issue);
  /// Reads a spilled stripe of \p A back and takes it out of the spill:
  /// its bytes and the runs this rank changed (\p Forget: and gives its
  /// slot back). Buffer lock held.
  Status takeSpilled(const iopoly_array *A, size_t S, std::vector<char> &Data, std::vector<IoRun> &Runs,
                     bool Forget = true);

  BufferEnv Env;
  std::mutex Mu;
  std::condition_variable CV;
  std::deque<Frame> Frames; ///< set up on demand, at most Env.NumFrames
  FrameMemory Memory;
  std::vector<Frame *> FreeList;
  Frame *LruHead = nullptr, *LruTail = nullptr; ///< head = least recent
  std::chrono::steady_clock::time_point Start;
  std::string AsyncError; ///< last failure of a background fetch
  /// Write-behind's check on itself (WriteBehind.cpp): of the stripes
  /// written ahead since the window began, how many changed again before
  /// their eviction; while Paused > 0, evictions start none.
  struct WriteBehindWindow {
    uint64_t Written = 0, Again = 0, Paused = 0;
    unsigned Failed = 0; ///< wasteful windows in a row (each doubles the pause)
  } WbWindow;
  size_t PinnedFrames = 0; ///< frames with Pins > 0 (the runs' budget)
  size_t TwinBytes = 0;    ///< memory held by twins now
  SpillStore Spill;        ///< shared arrays' private evictions (buffer lock)
  std::atomic<bool> SharedWriteThrough{false};
  bool SpillWarned = false;
};

} // namespace iopoly

#endif
