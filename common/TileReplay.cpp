//===- TileReplay.cpp - Stripe fetches of a band version, replayed -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "TileReplay.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace iopoly {

namespace {

/// Stripe key -> uint32_t, open addressing (the replay's hot loop: one
/// lookup per stripe touched; std::unordered_map was most of its time).
/// Entries are never removed; a missing key reads as Unseen.
class StripeIndex {
public:
  static constexpr uint32_t Unseen = ~0u - 1;

  uint32_t &at(uint64_t Key) {
    if ((Used + 1) * 2 > Keys.size())
      grow();
    size_t Mask = Keys.size() - 1;
    for (size_t I = hash(Key) & Mask;; I = (I + 1) & Mask) {
      if (Keys[I] == Key)
        return Values[I];
      if (Keys[I] == Empty) {
        Keys[I] = Key;
        Values[I] = Unseen;
        ++Used;
        return Values[I];
      }
    }
  }

private:
  static constexpr uint64_t Empty = ~0ULL; ///< no stripe has this key
  static size_t hash(uint64_t Key) { return static_cast<size_t>((Key * 0x9E3779B97F4A7C15ULL) >> 20); }
  void grow() {
    std::vector<uint64_t> OldKeys(std::max<size_t>(64, Keys.size() * 2), Empty);
    std::vector<uint32_t> OldValues(OldKeys.size());
    OldKeys.swap(Keys);
    OldValues.swap(Values);
    Used = 0;
    for (size_t I = 0; I < OldKeys.size(); ++I)
      if (OldKeys[I] != Empty)
        at(OldKeys[I]) = OldValues[I];
  }
  std::vector<uint64_t> Keys;
  std::vector<uint32_t> Values;
  size_t Used = 0;
};

/// An LRU set of stripes (array, stripe) of a fixed capacity, as the
/// runtime's buffer keeps them: a stripe is fetched when it comes into the
/// buffer, except the first time when it comes to be written only (a new
/// array's zeros, or data the loops replace); a stripe evicted dirty is
/// written back.
class Lru {
public:
  Lru(uint64_t Capacity, const FetchCost &C)
      : Capacity(Capacity ? Capacity : 1), Cost(C), LastOnDisk(C.Disks ? C.Disks : 1, ~0ULL) {}

  void touch(uint64_t Key, bool Write, bool Read) {
    // A run of touches to one stripe (the common case) stays at the front.
    if (Head != None && Nodes[Head].Key == Key) {
      Nodes[Head].Dirty |= Write;
      return;
    }
    uint32_t &Slot = Index.at(Key);
    uint32_t N = Slot;
    if (N >= NotResident) {
      // First time in the buffer: fetched unless only written then.
      if (Read || N == NotResident) {
        ++Misses;
        request(Key);
      }
      N = allocate(Key);
      Slot = N;
      if (++Resident > Capacity)
        evictOldest();
    } else {
      unlink(N);
    }
    Nodes[N].Dirty |= Write;
    pushFront(N);
  }

  uint64_t Misses = 0;
  double Spent = 0;
  uint64_t Requests = 0; ///< fetches and write-backs: the cost when every request costs 1

private:
  struct Node {
    uint64_t Key = 0;
    uint32_t Prev = None, Next = None;
    bool Dirty = false;
  };
  static constexpr uint32_t None = ~0u;
  static constexpr uint32_t NotResident = StripeIndex::Unseen - 1;

  /// A disk request for \p Key: sequential when it continues its disk's
  /// last request (the array's stripe one round of disks before). A
  /// write-back is priced as a fetch is: the program does not wait for it,
  /// but the fetches queued behind it on its disk do, and a write that
  /// does not continue the disk's last request costs a seek (two arrays
  /// written in step are written back in turn, each one a seek).
  void request(uint64_t Key) {
    uint64_t Stripe = Key & ((1ULL << 48) - 1);
    uint64_t &Last = LastOnDisk[Stripe % LastOnDisk.size()];
    bool Sequential = Last != ~0ULL && Last + LastOnDisk.size() == Key;
    Spent += Sequential ? Cost.Sequential : Cost.Random;
    ++Requests;
    Last = Key;
  }

  uint32_t allocate(uint64_t Key) {
    uint32_t N;
    if (!Free.empty()) {
      N = Free.back();
      Free.pop_back();
    } else {
      N = static_cast<uint32_t>(Nodes.size());
      Nodes.emplace_back();
    }
    Nodes[N] = Node();
    Nodes[N].Key = Key;
    return N;
  }
  void unlink(uint32_t N) {
    Node &X = Nodes[N];
    (X.Prev != None ? Nodes[X.Prev].Next : Head) = X.Next;
    (X.Next != None ? Nodes[X.Next].Prev : TailN) = X.Prev;
    X.Prev = X.Next = None;
  }
  void pushFront(uint32_t N) {
    Nodes[N].Next = Head;
    Nodes[N].Prev = None;
    if (Head != None)
      Nodes[Head].Prev = N;
    Head = N;
    if (TailN == None)
      TailN = N;
  }
  void evictOldest() {
    uint32_t N = TailN;
    unlink(N);
    if (Nodes[N].Dirty)
      request(Nodes[N].Key);
    Index.at(Nodes[N].Key) = NotResident;
    --Resident;
    Free.push_back(N);
  }

  uint64_t Capacity;
  FetchCost Cost;
  std::vector<uint64_t> LastOnDisk; ///< key of each disk's last request
  /// Per stripe its node while resident, NotResident after it was
  /// evicted, Unseen before it ever came in.
  StripeIndex Index;
  uint64_t Resident = 0;
  std::vector<Node> Nodes;
  std::vector<uint32_t> Free;
  uint32_t Head = None, TailN = None;
};

/// Stripe accesses one tile of the terms [First, Last) makes (an upper
/// bound: each run's stripes at an unknown alignment).
uint64_t tileWork(const iopoly_band_term *Terms, uint32_t First, uint32_t Last, uint64_t Stripe) {
  uint64_t W = 0;
  for (uint32_t K = First; K < Last; ++K) {
    const iopoly_band_term &T = Terms[K];
    W += T.outer * T.inner * (T.run / Stripe + 2);
  }
  return W ? W : 1;
}

/// Whether a term of [First, K) describes the same bytes as term K (an
/// array's initialisation and its reads are terms of their own).
bool sameBytesEarlier(const iopoly_band_term *Terms, uint32_t First, uint32_t K) {
  const iopoly_band_term &T = Terms[K];
  for (uint32_t J = First; J < K; ++J) {
    const iopoly_band_term &U = Terms[J];
    if (U.array == T.array && U.base == T.base && U.outer == T.outer && U.outer_pitch == T.outer_pitch &&
        U.inner == T.inner && U.inner_pitch == T.inner_pitch && U.run == T.run &&
        std::equal(U.step, U.step + IOPOLY_BAND_MAX_DIMS, T.step) &&
        (U.flags & IOPOLY_BAND_TERM_VARIES) == (T.flags & IOPOLY_BAND_TERM_VARIES) &&
        (!(T.flags & IOPOLY_BAND_TERM_VARIES) ||
         (U.inner_first == T.inner_first && U.run_first == T.run_first &&
          std::equal(U.inner_step, U.inner_step + IOPOLY_BAND_MAX_DIMS, T.inner_step) &&
          std::equal(U.run_step, U.run_step + IOPOLY_BAND_MAX_DIMS, T.run_step))))
      return true;
  }
  return false;
}

/// Stripes one tile of the terms [First, Last) keeps, with \p RunsOf(T,
/// Inner, Run) giving a term's runs in the tile (false: the term is not in
/// it): per term its runs' stripes, or its span's if fewer; per array, at
/// most the stripes of the span its terms cover together where they move
/// alike (a stencil's reads and writes of one array a row apart are one
/// band of rows, not two: counted apart, jacobi-2d's tiles of 32 looked
/// twice their size and were replayed a depth too deep, 4.5x the fetches).
template <typename RunsFn>
uint64_t keptStripes(const iopoly_band_term *Terms, uint32_t First, uint32_t Last, uint64_t Stripe, RunsFn RunsOf) {
  uint64_t N = 0;
  for (uint32_t A = First; A < Last; ++A) {
    bool Done = false; // an earlier term of the array counted it
    for (uint32_t J = First; J < A && !Done; ++J)
      Done = Terms[J].array == Terms[A].array;
    if (Done)
      continue;
    uint64_t Sum = 0, Bytes = Terms[A].bytes;
    int64_t Lo = INT64_MAX, Hi = INT64_MIN;
    bool Alike = true;
    for (uint32_t K = A; K < Last; ++K) {
      const iopoly_band_term &T = Terms[K];
      uint64_t Inner, Run;
      if (T.array != Terms[A].array || !RunsOf(T, Inner, Run) || !Inner || sameBytesEarlier(Terms, First, K))
        continue;
      uint64_t ByRuns = T.outer * Inner * iopoly_tile_stripes(Run, Stripe);
      uint64_t Span = (T.outer - 1) * T.outer_pitch + (Inner - 1) * T.inner_pitch + Run;
      if (T.bytes && Span > T.bytes)
        Span = T.bytes;
      Sum += std::min(ByRuns, iopoly_tile_stripes(Span, Stripe));
      Alike &= std::equal(T.step, T.step + IOPOLY_BAND_MAX_DIMS, Terms[A].step);
      Lo = std::min(Lo, T.base);
      Hi = std::max(Hi, T.base + static_cast<int64_t>(Span));
    }
    if (Alike && Hi > Lo) {
      uint64_t Union = static_cast<uint64_t>(Hi - Lo);
      if (Bytes && Union > Bytes)
        Union = Bytes;
      Sum = std::min(Sum, iopoly_tile_stripes(Union, Stripe));
    }
    N += Sum;
  }
  return N;
}

/// Stripes one tile of the terms [First, Last) keeps (keptStripes, with
/// the largest tile's runs).
uint64_t tileStripes(const iopoly_band_term *Terms, uint32_t First, uint32_t Last, uint64_t Stripe) {
  return keptStripes(Terms, First, Last, Stripe, [](const iopoly_band_term &T, uint64_t &Inner, uint64_t &Run) {
    Inner = T.inner;
    Run = T.run;
    return true;
  });
}

/// Whether some of the terms [First, Last) describe tiles that grow or
/// shrink along the loops (triangular loops).
bool varies(const iopoly_band_term *Terms, uint32_t First, uint32_t Last) {
  for (uint32_t K = First; K < Last; ++K)
    if (Terms[K].flags & IOPOLY_BAND_TERM_VARIES)
      return true;
  return false;
}

/// Bytes a replay placed, and those of them that fell outside their array.
struct Placed {
  double All = 0, Outside = 0;
};

} // namespace

/// The stripes one band's tiles touch, in order: the same for every
/// buffer size, so computed once per band and stripe size
/// (ReplayWalks) and replayed through buffers of each size.
struct BandWalk {
  /// One stripe touched, packed in a word (walks of millions of steps are
  /// kept): the stripe in bits 0-47, the array in 48-61 (an index within
  /// the SCoP, wrapped past 16383), whether it is written and read in bits
  /// 62 and 63. A run of touches to one stripe is one step (the later ones
  /// find it at the LRU's front: they only dirty it).
  struct Step {
    static constexpr uint64_t WriteBit = 1ULL << 62, ReadBit = 1ULL << 63;
    static uint64_t key(uint32_t Array, uint64_t Stripe, bool Write, bool Read) {
      return (static_cast<uint64_t>(Array & 0x3FFF) << 48) | Stripe | (Write ? WriteBit : 0) | (Read ? ReadBit : 0);
    }
    uint64_t Bits;
    uint64_t key() const { return Bits & ~(WriteBit | ReadBit); }
    bool write() const { return Bits & WriteBit; }
    bool read() const { return Bits & ReadBit; }
  };
  std::vector<Step> Steps;
  double Share = 1;     ///< share of the band's tiles walked
  bool Sampled = false; ///< Share < 1
  Placed Bytes;         ///< bytes the walk placed

  /// Adds a touch (Step bits).
  void add(uint64_t Bits) {
    if (!Steps.empty() && ((Steps.back().Bits ^ Bits) & ~(Step::WriteBit | Step::ReadBit)) == 0)
      Steps.back().Bits |= Bits & Step::WriteBit;
    else
      Steps.push_back({Bits});
  }
};

namespace {

/// Whether the tile at \p Coord touches what term \p T describes.
bool appliesAt(const iopoly_band_term &T, const uint64_t *Coord, uint32_t Dims) {
  for (uint32_t D = 0; D < Dims; ++D)
    if (T.upto[D] && (Coord[D] < T.from[D] || Coord[D] >= T.upto[D]))
      return false;
  return true;
}

/// The runs of term \p T in the tile at \p Coord and their bytes: the
/// largest tile's, or, for a triangular loop's, this tile's (at most the
/// largest; none where the triangle leaves the tile empty).
void runsAt(const iopoly_band_term &T, const uint64_t *Coord, uint32_t Dims, uint64_t &Inner, uint64_t &Run) {
  Inner = T.inner;
  Run = T.run;
  if (!(T.flags & IOPOLY_BAND_TERM_VARIES))
    return;
  int64_t I = T.inner_first, R = T.run_first;
  for (uint32_t D = 0; D < Dims; ++D) {
    I += T.inner_step[D] * static_cast<int64_t>(Coord[D]);
    R += T.run_step[D] * static_cast<int64_t>(Coord[D]);
  }
  Inner = I <= 0 ? 0 : std::min<uint64_t>(static_cast<uint64_t>(I), T.inner);
  Run = R <= 0 ? 0 : std::min<uint64_t>(static_cast<uint64_t>(R), T.run);
  if (!Run)
    Inner = 0;
}

/// Stripes the tile at \p Coord of the terms [First, Last) keeps (as
/// tileStripes, with this tile's runs).
uint64_t tileStripesAt(const iopoly_band_term *Terms, uint32_t First, uint32_t Last, const uint64_t *Coord,
                       uint32_t Dims, uint64_t Stripe) {
  return keptStripes(Terms, First, Last, Stripe, [&](const iopoly_band_term &T, uint64_t &Inner, uint64_t &Run) {
    if (!appliesAt(T, Coord, Dims))
      return false;
    runsAt(T, Coord, Dims, Inner, Run);
    return true;
  });
}

/// The stripes one term touches in a tile, in its order: [Begin, End) of
/// the tile's list.
struct TermRun {
  size_t Begin, End;
};

/// Scratch of touchTile, kept between tiles (a walk touches millions).
struct TileScratch {
  std::vector<uint64_t> Keys;
  std::vector<TermRun> Runs;
  std::vector<std::pair<size_t, size_t>> Heap; ///< each term's next touch: (its index in the term's list, term)
};

void touchTile(BandWalk &Out, const iopoly_band_term *Terms, uint32_t First, uint32_t Last, const uint64_t *Coord,
               uint32_t Dims, uint64_t Stripe, TileScratch &W) {
  // Bytes placed and those outside the arrays, counted exactly (whole
  // numbers: the same sums a double would hold, without a conversion and
  // an addition through memory per run).
  uint64_t All = 0, Outside = 0;
  // Stripes are powers of two in practice: a shift, not a 64-bit division
  // per run (the walk's hottest instructions).
  const bool Pow2 = (Stripe & (Stripe - 1)) == 0;
  const unsigned Shift = Pow2 ? static_cast<unsigned>(__builtin_ctzll(Stripe)) : 0;
  auto stripeOf = [&](uint64_t Byte) { return Pow2 ? Byte >> Shift : Byte / Stripe; };
  // What a tile only writes (an initialisation fused with its use) is
  // taken to come first. Otherwise the loops inside a tile walk its arrays
  // together: the stripes of its terms are requested in turn, each term's
  // in its own order, as far along as the others (two rows read in step
  // alternate between their files on each disk).
  for (int WriteOnly = 1; WriteOnly >= 0; --WriteOnly) {
    W.Keys.clear();
    W.Runs.clear();
    for (uint32_t K = First; K < Last; ++K) {
      const iopoly_band_term &T = Terms[K];
      bool Write = T.flags & IOPOLY_BAND_TERM_WRITES;
      bool Read = T.flags & IOPOLY_BAND_TERM_READS;
      if ((Write && !Read) != static_cast<bool>(WriteOnly) || !appliesAt(T, Coord, Dims))
        continue;
      int64_t Start = T.base;
      for (uint32_t D = 0; D < Dims; ++D)
        Start += T.step[D] * static_cast<int64_t>(Coord[D]);
      uint64_t Key = BandWalk::Step::key(T.array, 0, Write, Read);
      size_t Begin = W.Keys.size();
      uint64_t Inner, Run;
      runsAt(T, Coord, Dims, Inner, Run);
      for (uint64_t O = 0; O < T.outer; ++O)
        for (uint64_t I = 0; I < Inner; ++I) {
          int64_t Lo = Start + static_cast<int64_t>(O * T.outer_pitch + I * T.inner_pitch);
          int64_t Hi = Lo + static_cast<int64_t>(Run) - 1;
          All += Run;
          if (Lo < 0)
            Lo = 0;
          if (T.bytes && Hi >= static_cast<int64_t>(T.bytes))
            Hi = static_cast<int64_t>(T.bytes) - 1;
          Outside += Run - static_cast<uint64_t>(std::max<int64_t>(0, Hi - Lo + 1));
          if (Lo > Hi)
            continue;
          for (uint64_t S = stripeOf(static_cast<uint64_t>(Lo)), Last = stripeOf(static_cast<uint64_t>(Hi)); S <= Last;
               ++S)
            W.Keys.push_back(Key | S);
        }
      if (W.Keys.size() > Begin)
        W.Runs.push_back({Begin, W.Keys.size()});
    }
    if (W.Runs.empty())
      continue;
    if (W.Runs.size() == 1) {
      for (uint64_t Key : W.Keys)
        Out.add(Key);
      continue;
    }
    // Merge the terms' lists by position in their own walk, (J + 0.5) / N
    // for the J-th of N; a tie goes to the earlier term. That is the order
    // a stable sort by position gives: with lists of one length, turn by
    // turn; otherwise with a heap of the terms' next touches, positions
    // compared exactly as (2J + 1) * M against (2K + 1) * N.
    size_t Len = W.Runs[0].End - W.Runs[0].Begin;
    bool SameLength = true;
    for (const TermRun &R : W.Runs)
      SameLength &= R.End - R.Begin == Len;
    if (SameLength) {
      for (size_t J = 0; J < Len; ++J)
        for (const TermRun &R : W.Runs)
          Out.add(W.Keys[R.Begin + J]);
      continue;
    }
    auto later = [&](const std::pair<size_t, size_t> &A, const std::pair<size_t, size_t> &B) {
      // A = (J, R) comes after B = (K, S). A tile's lists are far shorter
      // than 2^31 touches (the walk's budget), so the products fit.
      uint64_t LenA = W.Runs[A.second].End - W.Runs[A.second].Begin;
      uint64_t LenB = W.Runs[B.second].End - W.Runs[B.second].Begin;
      uint64_t PosA = (2 * static_cast<uint64_t>(A.first) + 1) * LenB;
      uint64_t PosB = (2 * static_cast<uint64_t>(B.first) + 1) * LenA;
      return PosA != PosB ? PosA > PosB : A.second > B.second;
    };
    W.Heap.clear();
    for (size_t R = 0; R < W.Runs.size(); ++R)
      W.Heap.push_back({0, R});
    std::make_heap(W.Heap.begin(), W.Heap.end(), later);
    while (!W.Heap.empty()) {
      std::pop_heap(W.Heap.begin(), W.Heap.end(), later);
      auto [J, R] = W.Heap.back();
      Out.add(W.Keys[W.Runs[R].Begin + J]);
      if (J + 1 < W.Runs[R].End - W.Runs[R].Begin) {
        W.Heap.back().first = J + 1;
        std::push_heap(W.Heap.begin(), W.Heap.end(), later);
      } else {
        W.Heap.pop_back();
      }
    }
  }
  Out.Bytes.All += static_cast<double>(All);
  Out.Bytes.Outside += static_cast<double>(Outside);
}

/// Whether some of the terms [First, Last) apply to some tiles only along
/// dimension \p D.
bool restrictedAlong(const iopoly_band_term *Terms, uint32_t First, uint32_t Last, uint32_t D) {
  for (uint32_t K = First; K < Last; ++K)
    if (Terms[K].upto[D])
      return true;
  return false;
}

/// Longest sequence of statements the sampling of a large nest keeps whole.
constexpr uint64_t MaxWholeSequence = 16;

/// A nest's walk is planned to at most this many times the budget (see
/// walkNest).
constexpr uint64_t MaxWalkBudgets = 16;

/// Runs of iterations a sampled loop along which tiles grow is replayed at.
constexpr uint64_t SpreadBlocks = 8;

/// Whether the tiles of some of the terms [First, Last) grow or shrink
/// along loop \p D.
bool growsAlong(const iopoly_band_term *Terms, uint32_t First, uint32_t Last, uint32_t D) {
  for (uint32_t K = First; K < Last; ++K)
    if ((Terms[K].flags & IOPOLY_BAND_TERM_VARIES) && (Terms[K].inner_step[D] || Terms[K].run_step[D]))
      return true;
  return false;
}

/// The walk of one nest: the tiles of its band \p Spans[Start] in order,
/// the stripes each touches. Where Start < Pick (triangular loops: the
/// tiles of one depth differ in size), a tile whose stripes do not fit
/// \p Room is walked as its tiles one depth deeper, and so on down to the
/// band \p Spans[Pick], whose tiles are touched whole (the shallowest depth
/// whose largest tile fits, or the deepest).
void walkNest(const iopoly_tile_table &T, const std::vector<BandSpan> &Spans, size_t Start, size_t Pick,
              uint64_t Room, uint64_t Stripe, uint64_t Budget, BandWalk &Out) {
  // Out's steps keep their memory (a walk of millions of steps, built
  // again for every buffer size when not kept: growing a new vector each
  // time was a third of the replay's time, in page faults and copies).
  Out.Steps.clear();
  Out.Share = 1;
  Out.Sampled = false;
  Out.Bytes = Placed();
  bool &Sampled = Out.Sampled;
  const BandSpan &S = Spans[Pick];
  const iopoly_band &B = T.bands[S.Band];
  uint32_t Dims = std::min<uint32_t>(B.dims, IOPOLY_BAND_MAX_DIMS);
  // Replay Limit[d] iterations of each loop from First[d]: all of them,
  // unless the nest's work exceeds the budget; then the outer loops are cut
  // (outermost first) and the fetches scaled by the share replayed. A cut
  // loop starts where every statement restricted along it has begun (the
  // first row of a triangular nest runs none of its inner statements).
  // Along a loop on which a triangular nest's tiles grow, the replayed
  // iterations are spread over the loop instead (SpreadBlocks runs of
  // them, evenly spaced, at least one iteration each): its first ones
  // would stand for the smallest tiles only.
  uint64_t Limit[IOPOLY_BAND_MAX_DIMS], First[IOPOLY_BAND_MAX_DIMS];
  std::vector<uint64_t> Spread[IOPOLY_BAND_MAX_DIMS];
  uint64_t Work = tileWork(T.band_terms, S.First, S.Last, Stripe);
  double Share = 1;
  auto plan = [&](uint64_t Budget) {
    Share = 1;
    Sampled = false;
    for (uint32_t D = 0; D < Dims; ++D) {
      First[D] = 0;
      Spread[D].clear();
    }
    for (uint32_t D = 0; D < Dims; ++D)
      Limit[D] = B.count[D] ? B.count[D] : 1;
    for (uint32_t D = 0; D < Dims; ++D) {
      uint64_t Inner = Work;
      for (uint32_t E = D + 1; E < Dims; ++E)
        Inner = Inner > Budget ? Inner : Inner * Limit[E];
      uint64_t Fit = Budget / (Inner ? Inner : 1);
      if (Fit >= Limit[D])
        break;
      // A sequence of statements (a short dimension some terms apply to at
      // some positions only) is replayed whole: its first position alone
      // would stand for statements it does not run. The loops inside it are
      // cut instead.
      if (Limit[D] <= MaxWholeSequence && restrictedAlong(T.band_terms, S.First, S.Last, D))
        continue;
      uint64_t Keep = Fit ? Fit : 1;
      Sampled = true;
      if (Start < Pick && growsAlong(T.band_terms, Spans[Start].First, S.Last, D)) {
        Keep = std::min(Limit[D], std::max<uint64_t>(Keep, SpreadBlocks));
        Share *= static_cast<double>(Keep) / static_cast<double>(Limit[D]);
        uint64_t Blocks = std::min<uint64_t>(Keep, SpreadBlocks);
        for (uint64_t K = 0; K < Blocks; ++K) {
          uint64_t Len = Keep / Blocks + (K < Keep % Blocks ? 1 : 0);
          uint64_t Mid = (2 * K + 1) * Limit[D] / (2 * Blocks);
          uint64_t From = std::min(Mid > Len / 2 ? Mid - Len / 2 : 0, Limit[D] - Len);
          if (!Spread[D].empty() && From <= Spread[D].back())
            From = Spread[D].back() + 1;
          for (uint64_t I = From; I < From + Len && I < Limit[D]; ++I)
            Spread[D].push_back(I);
        }
        continue;
      }
      Share *= static_cast<double>(Keep) / static_cast<double>(Limit[D]);
      for (uint32_t K = S.First; K < S.Last; ++K)
        if (T.band_terms[K].upto[D])
          First[D] = std::max<uint64_t>(First[D], T.band_terms[K].from[D]);
      First[D] = std::min(First[D], Limit[D] - Keep);
      Limit[D] = Keep;
    }
  };
  // Loops kept whole (short sequences of statements) and spread loops
  // leave the loops inside them the whole budget again: ludcmp's nests,
  // with several of each, planned walks of 100 million touches (10 s of
  // its compile). Past MaxWalkBudgets times the budget, the budget is
  // shrunk by the excess.
  auto planned = [&] {
    double N = static_cast<double>(Work);
    for (uint32_t D = 0; D < Dims; ++D)
      N *= static_cast<double>(Spread[D].empty() ? Limit[D] : Spread[D].size());
    return N;
  };
  const double MaxPlanned = static_cast<double>(MaxWalkBudgets) * static_cast<double>(Budget);
  plan(Budget);
  for (int Round = 0; Round < 4 && planned() > MaxPlanned && Budget > 1; ++Round) {
    Budget = std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(Budget) * MaxPlanned / planned()));
    plan(Budget);
  }
  Out.Share = Share;
  // The values each loop takes: Spread[D] along a spread loop, else
  // Limit[D] from First[D]; within its own bounds where its band has them
  // (a triangular nest's loop starts or ends with the loops outside it).
  const iopoly_band *Bounds[IOPOLY_BAND_MAX_DIMS] = {};
  for (const BandSpan &X : Spans) {
    const iopoly_band &Bd = T.bands[X.Band];
    if ((Bd.flags & IOPOLY_BAND_BOUNDED) && Bd.dims >= 1 && Bd.dims <= Dims)
      Bounds[Bd.dims - 1] = &Bd;
  }
  uint64_t Coord[IOPOLY_BAND_MAX_DIMS] = {};
  TileScratch Walk;
  // The tiles of band Spans[Level] inside the current tile of the level
  // above (whose loops are Coord[0 .. Above)), lexicographically: loop D
  // and those inside it.
  auto loops = [&](auto &Self, size_t Level, uint32_t D, uint32_t Here) -> void {
    if (D == Here) {
      const BandSpan &L = Spans[Level];
      if (Level >= Pick || tileStripesAt(T.band_terms, L.First, L.Last, Coord, Here, Stripe) <= Room)
        touchTile(Out, T.band_terms, L.First, L.Last, Coord, Here, Stripe, Walk);
      else {
        uint32_t Next = std::max(Here, std::min<uint32_t>(T.bands[Spans[Level + 1].Band].dims, Dims));
        Self(Self, Level + 1, Here, Next);
      }
      return;
    }
    int64_t Lo = 0, Hi = INT64_MAX;
    if (const iopoly_band *Bd = Bounds[D]) {
      Lo = Bd->lo_first;
      Hi = Bd->hi_first;
      for (uint32_t E = 0; E < D; ++E) {
        Lo += Bd->lo_step[E] * static_cast<int64_t>(Coord[E]);
        Hi += Bd->hi_step[E] * static_cast<int64_t>(Coord[E]);
      }
    }
    // Only the values within [Lo, Hi]: a triangle's bounds leave much of
    // a sampled loop's range out.
    if (Hi < Lo || Hi < 0)
      return;
    uint64_t From = static_cast<uint64_t>(std::max<int64_t>(Lo, 0)), To = static_cast<uint64_t>(Hi);
    if (Spread[D].empty()) {
      for (uint64_t C = std::max(First[D], From); C < First[D] + Limit[D] && C <= To; ++C) {
        Coord[D] = C;
        Self(Self, Level, D + 1, Here);
      }
    } else {
      for (auto It = std::lower_bound(Spread[D].begin(), Spread[D].end(), From); It != Spread[D].end() && *It <= To;
           ++It) {
        Coord[D] = *It;
        Self(Self, Level, D + 1, Here);
      }
    }
  };
  uint32_t Here = std::min<uint32_t>(T.bands[Spans[Start].Band].dims, Dims);
  loops(loops, Start, 0, Here);
}

/// Replays \p W into \p L; adds its (scaled) fetches and their cost to
/// \p R and its placed bytes to \p P.
void replayWalk(Lru &L, const BandWalk &W, ModelReplay &R, Placed &P) {
  uint64_t Before = L.Misses;
  double Spent = L.Spent;
  uint64_t Requests = L.Requests;
  for (const BandWalk::Step &X : W.Steps)
    L.touch(X.key(), X.write(), X.read());
  R.Fetches += static_cast<double>(L.Misses - Before) / W.Share;
  R.Cost += (L.Spent - Spent) / W.Share;
  R.Requests += static_cast<double>(L.Requests - Requests) / W.Share;
  R.Sampled |= W.Sampled;
  R.Touches += W.Steps.size();
  P.All += W.Bytes.All;
  P.Outside += W.Bytes.Outside;
}

} // namespace

struct ReplayWalks::Kept {
  static constexpr uint64_t MaxSteps = 1u << 23; ///< 64 MiB of steps
  std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, uint64_t>, BandWalk> Walks;
  BandWalk Scratch; ///< the walk built last (its memory reused); past the cap, used once
  uint64_t Steps = 0;
};

ReplayWalks::ReplayWalks() : K(std::make_unique<Kept>()) {}
ReplayWalks::~ReplayWalks() = default;

const BandWalk &ReplayWalks::walk(const iopoly_tile_table &T, const std::vector<BandSpan> &Spans, size_t Start,
                                  size_t Pick, uint64_t Room, uint64_t Stripe, uint64_t Budget) {
  // A walk from a shallower depth depends on the buffer (Room) too.
  auto Key = std::make_tuple(Spans[Start].First, Spans[Pick].First, Stripe, Budget, Start < Pick ? Room : 0);
  auto It = K->Walks.find(Key);
  if (It != K->Walks.end())
    return It->second;
  walkNest(T, Spans, Start, Pick, Room, Stripe, Budget, K->Scratch);
  if (K->Steps + K->Scratch.Steps.size() > Kept::MaxSteps)
    return K->Scratch;
  K->Steps += K->Scratch.Steps.size();
  return K->Walks.emplace(Key, K->Scratch).first->second;
}

namespace {

/// One nest of a version's model: its bands by increasing depth, each with
/// its terms, and the depths a replay walks.
struct NestPlan {
  std::vector<BandSpan> Depths;
  size_t Pick = 0;   ///< the shallowest depth whose tiles fit; the deepest if none does
  size_t Start = 0;  ///< where the walk starts (triangular loops: shallower)
  uint64_t Need = 0; ///< stripes a tile of depth Pick keeps
  bool Found = false; ///< a depth fits
};

/// Calls \p Fn with the plan of every nest of version \p V's model, in
/// order, for stripes of \p Stripe bytes and \p Room stripes for a tile.
template <typename F>
void forEachNest(const iopoly_tile_table &T, uint32_t V, uint64_t Stripe, uint64_t Room, F Fn) {
  const iopoly_tile_version &Ver = T.versions[V];
  uint32_t End = Ver.model_first + Ver.model_count;
  uint32_t K = Ver.model_first;
  NestPlan P;
  while (K < End) {
    uint32_t Nest = T.bands[T.band_terms[K].band].nest;
    P.Depths.clear();
    while (K < End && T.bands[T.band_terms[K].band].nest == Nest) {
      BandSpan S{T.band_terms[K].band, K, K};
      while (S.Last < End && T.band_terms[S.Last].band == S.Band)
        ++S.Last;
      P.Depths.push_back(S);
      K = S.Last;
    }
    // The shallowest depth whose tiles fit; the deepest if none does (its
    // tiles then thrash in a way the replay does not see: Fits = false).
    P.Pick = P.Depths.size() - 1;
    P.Need = tileStripes(T.band_terms, P.Depths[P.Pick].First, P.Depths[P.Pick].Last, Stripe);
    P.Found = false;
    for (size_t D = 0; D < P.Depths.size(); ++D) {
      uint64_t N = tileStripes(T.band_terms, P.Depths[D].First, P.Depths[D].Last, Stripe);
      if (N <= Room) {
        P.Pick = D;
        P.Need = N;
        P.Found = true;
        break;
      }
    }
    // Triangular loops: the walk starts at the shallowest depth whose tiles
    // differ in size, and takes each of its tiles whole where it fits.
    P.Start = P.Pick;
    for (size_t D = 0; D < P.Pick; ++D)
      if (varies(T.band_terms, P.Depths[D].First, P.Depths[D].Last)) {
        P.Start = D;
        break;
      }
    Fn(P);
  }
}

/// Stripes of a buffer of \p Frames a tile may keep.
uint64_t tileRoom(uint64_t Frames) { return Frames * 3 / 4; }

} // namespace

bool modelFits(const iopoly_tile_table &T, uint32_t V, uint64_t Stripe, uint64_t Frames, uint64_t &Need) {
  bool Fits = true;
  Need = 0;
  if (!Stripe || !hasModel(T, V))
    return Fits;
  forEachNest(T, V, Stripe, tileRoom(Frames), [&](const NestPlan &P) {
    Fits &= P.Found;
    Need = std::max(Need, P.Need);
  });
  return Fits;
}

ModelReplay replayModel(const iopoly_tile_table &T, uint32_t V, uint64_t Stripe, uint64_t Frames,
                        const FetchCost &Cost, uint64_t Budget, ReplayWalks *Walks) {
  ModelReplay R;
  if (!Stripe || !hasModel(T, V))
    return R;
  uint64_t Room = tileRoom(Frames);
  Lru L(Frames, Cost);
  Placed P;
  BandWalk Scratch;
  forEachNest(T, V, Stripe, Room, [&](const NestPlan &N) {
    R.Fits &= N.Found;
    R.Need = std::max(R.Need, N.Need);
    if (Walks) {
      replayWalk(L, Walks->walk(T, N.Depths, N.Start, N.Pick, Room, Stripe, Budget), R, P);
    } else {
      walkNest(T, N.Depths, N.Start, N.Pick, Room, Stripe, Budget, Scratch);
      replayWalk(L, Scratch, R, P);
    }
  });
  R.Outside = P.All > 0 ? P.Outside / P.All : 0;
  return R;
}

} // namespace iopoly
