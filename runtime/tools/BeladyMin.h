//===- BeladyMin.h - Belady's MIN on a stripe reference string --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The fewest misses any replacement policy can have on a given sequence of
// stripe references with a buffer of a given number of frames (Belady's
// MIN: on a miss with a full buffer, drop the stripe used again farthest in
// the future). The floor beside every measured run (iopoly-trace --min).
//
// A run's references can outgrow memory (PolyBench gemm at LARGE in
// Polly's order: 330 million in a 9 GB trace), so MinCounter keeps them out
// of core: each stripe gets a 4-byte number, the numbers and then their
// next uses go to an unlinked scratch file, and only the distinct stripes
// and the frames stay in memory.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_TOOLS_BELADYMIN_H
#define IOPOLY_RUNTIME_TOOLS_BELADYMIN_H

#include "core/Error.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

namespace iopoly {

struct MinResult {
  uint64_t References = 0;
  uint64_t Distinct = 0; ///< distinct stripes referenced (first references)
  uint64_t Misses = 0;   ///< MIN's misses, first references included
  /// Misses that must read the disk: all but the first reference of each
  /// stripe (arrays created by the run start as zeros and need no read).
  uint64_t Refetches() const { return Misses - Distinct; }
};

/// Belady's MIN over references given one at a time (add), counted at the
/// end (count). A reference to the stripe just referenced is a hit for any
/// policy and changes no choice: it is counted, not kept.
class MinCounter {
public:
  /// \p ScratchDir: where the scratch file goes ("" for $TMPDIR, else
  /// /tmp); \p ChunkRefs: references held in memory at a time.
  explicit MinCounter(std::string ScratchDir = "", size_t ChunkRefs = size_t(1) << 22);
  ~MinCounter();
  MinCounter(const MinCounter &) = delete;
  MinCounter &operator=(const MinCounter &) = delete;

  Status add(uint64_t Key);
  /// MIN's result with \p Frames frames.
  Status count(uint64_t Frames, MinResult &Out);

private:
  Status spill();
  Status scratch();
  Status readAt(void *P, size_t Bytes, uint64_t Offset);
  Status writeAt(const void *P, size_t Bytes, uint64_t Offset);

  std::string Dir;
  size_t Chunk;
  std::unordered_map<uint64_t, uint32_t> Ids; ///< stripe key -> its number
  std::vector<uint32_t> Pending;              ///< references not yet spilled
  uint64_t Spilled = 0;                       ///< references in the file
  uint64_t References = 0;
  uint64_t LastKey = 0;
  bool Any = false;
  int Fd = -1; ///< scratch: numbers (4 bytes each), then next uses (8 bytes each)
};

/// Belady's MIN over \p Refs (any 64-bit stripe keys) with \p Frames frames.
MinResult beladyMin(const std::vector<uint64_t> &Refs, uint64_t Frames);

} // namespace iopoly

#endif
