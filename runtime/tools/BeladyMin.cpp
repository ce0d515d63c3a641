//===- BeladyMin.cpp - Belady's MIN on a stripe reference string -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "tools/BeladyMin.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unistd.h>
#include <utility>

namespace iopoly {

namespace {
constexpr uint64_t Never = std::numeric_limits<uint64_t>::max();
} // namespace

MinCounter::MinCounter(std::string ScratchDir, size_t ChunkRefs)
    : Dir(std::move(ScratchDir)), Chunk(std::max<size_t>(ChunkRefs, 1)) {}

MinCounter::~MinCounter() {
  if (Fd >= 0)
    ::close(Fd);
}

Status MinCounter::add(uint64_t Key) {
  ++References;
  if (Any && Key == LastKey)
    return {};
  Any = true;
  LastKey = Key;
  auto [It, New] = Ids.emplace(Key, static_cast<uint32_t>(Ids.size()));
  if (New && Ids.size() > std::numeric_limits<uint32_t>::max())
    return Status::error("Belady's MIN: more than 4 billion distinct stripes in one trace");
  Pending.push_back(It->second);
  return Pending.size() >= Chunk ? spill() : Status();
}

Status MinCounter::scratch() {
  if (Dir.empty()) {
    const char *T = std::getenv("TMPDIR");
    Dir = T && *T ? T : "/tmp";
  }
  std::string Path = Dir + "/iopoly-min-XXXXXX";
  Fd = ::mkstemp(Path.data());
  if (Fd < 0)
    return Status::error(format("Belady's MIN: cannot create a scratch file in '%s': %s", Dir.c_str(),
                                std::strerror(errno)));
  ::unlink(Path.c_str()); // gone when closed, whatever happens
  return {};
}

Status MinCounter::writeAt(const void *P, size_t Bytes, uint64_t Offset) {
  const char *C = static_cast<const char *>(P);
  while (Bytes) {
    ssize_t N = ::pwrite(Fd, C, Bytes, static_cast<off_t>(Offset));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return Status::error(format("Belady's MIN: cannot write its scratch file in '%s': %s", Dir.c_str(),
                                  N < 0 ? std::strerror(errno) : "no space written"));
    C += N;
    Bytes -= static_cast<size_t>(N);
    Offset += static_cast<uint64_t>(N);
  }
  return {};
}

Status MinCounter::readAt(void *P, size_t Bytes, uint64_t Offset) {
  char *C = static_cast<char *>(P);
  while (Bytes) {
    ssize_t N = ::pread(Fd, C, Bytes, static_cast<off_t>(Offset));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return Status::error(format("Belady's MIN: cannot read its scratch file in '%s': %s", Dir.c_str(),
                                  N < 0 ? std::strerror(errno) : "it ended early"));
    C += N;
    Bytes -= static_cast<size_t>(N);
    Offset += static_cast<uint64_t>(N);
  }
  return {};
}

Status MinCounter::spill() {
  if (Pending.empty())
    return {};
  if (Fd < 0)
    if (Status S = scratch())
      return S;
  if (Status S = writeAt(Pending.data(), Pending.size() * sizeof(uint32_t), Spilled * sizeof(uint32_t)))
    return S;
  Spilled += Pending.size();
  Pending.clear();
  return {};
}

Status MinCounter::count(uint64_t Frames, MinResult &Out) {
  Out = MinResult();
  Out.References = References;
  Out.Distinct = Ids.size();
  if (Frames == 0) {
    Out.Misses = References;
    return {};
  }
  // Everything in memory unless some of it was spilled already.
  bool InCore = Fd < 0;
  if (!InCore)
    if (Status S = spill())
      return S;
  const uint64_t Refs = InCore ? Pending.size() : Spilled;
  const uint64_t NextBase = (Refs * sizeof(uint32_t) + 7) / 8 * 8; // next uses after the numbers
  std::vector<uint32_t> IdBuf(InCore ? 0 : Chunk);
  std::vector<uint64_t> NextBuf(InCore ? Refs : Chunk);
  auto ids = [&](uint64_t From, size_t N, const uint32_t *&P) -> Status {
    if (InCore) {
      P = Pending.data() + From;
      return {};
    }
    P = IdBuf.data();
    return readAt(IdBuf.data(), N * sizeof(uint32_t), From * sizeof(uint32_t));
  };
  // Backward: each reference's next use (the position of the next
  // reference to its stripe), a chunk at a time from the end.
  {
    std::vector<uint64_t> Later(Ids.size(), Never);
    for (uint64_t End = Refs; End > 0;) {
      uint64_t Begin = End > Chunk ? End - Chunk : 0;
      size_t N = static_cast<size_t>(End - Begin);
      const uint32_t *P;
      if (Status S = ids(Begin, N, P))
        return S;
      uint64_t *Next = InCore ? NextBuf.data() + Begin : NextBuf.data();
      for (size_t J = N; J-- > 0;) {
        Next[J] = Later[P[J]];
        Later[P[J]] = Begin + J;
      }
      if (!InCore)
        if (Status S = writeAt(Next, N * sizeof(uint64_t), NextBase + Begin * sizeof(uint64_t)))
          return S;
      End = Begin;
    }
  }
  // Forward: MIN. The heap holds (next use, stripe) and is cleaned lazily:
  // an entry is current only if it matches NextUse; it is rebuilt from the
  // resident stripes when stale entries outnumber them.
  std::vector<uint64_t> NextUse(Ids.size(), 0);
  std::vector<uint32_t> Slot(Ids.size(), ~0u); ///< place in Resident, ~0u if not resident
  std::vector<uint32_t> Resident;
  std::vector<std::pair<uint64_t, uint32_t>> Heap;
  const size_t RebuildAt = 2 * static_cast<size_t>(std::min<uint64_t>(Frames, Ids.size())) + 4096;
  for (uint64_t Begin = 0; Begin < Refs; Begin += Chunk) {
    size_t N = static_cast<size_t>(std::min<uint64_t>(Chunk, Refs - Begin));
    const uint32_t *P;
    if (Status S = ids(Begin, N, P))
      return S;
    const uint64_t *Next = InCore ? NextBuf.data() + Begin : NextBuf.data();
    if (!InCore)
      if (Status S = readAt(NextBuf.data(), N * sizeof(uint64_t), NextBase + Begin * sizeof(uint64_t)))
        return S;
    for (size_t J = 0; J < N; ++J) {
      uint32_t Id = P[J];
      if (Slot[Id] == ~0u) {
        ++Out.Misses;
        while (Resident.size() >= Frames) {
          std::pop_heap(Heap.begin(), Heap.end());
          auto [When, Victim] = Heap.back();
          Heap.pop_back();
          if (Slot[Victim] == ~0u || NextUse[Victim] != When)
            continue;
          uint32_t Moved = Resident.back();
          Resident[Slot[Victim]] = Moved;
          Slot[Moved] = Slot[Victim];
          Resident.pop_back();
          Slot[Victim] = ~0u;
        }
        Slot[Id] = static_cast<uint32_t>(Resident.size());
        Resident.push_back(Id);
      }
      NextUse[Id] = Next[J];
      Heap.push_back({Next[J], Id});
      std::push_heap(Heap.begin(), Heap.end());
      if (Heap.size() > RebuildAt) {
        Heap.clear();
        for (uint32_t R : Resident)
          Heap.push_back({NextUse[R], R});
        std::make_heap(Heap.begin(), Heap.end());
      }
    }
  }
  return {};
}

MinResult beladyMin(const std::vector<uint64_t> &Refs, uint64_t Frames) {
  MinCounter C("", Refs.size() + 1); // one chunk: never spills, cannot fail
  MinResult R;
  for (uint64_t K : Refs)
    (void)C.add(K);
  (void)C.count(Frames, R);
  return R;
}

} // namespace iopoly
