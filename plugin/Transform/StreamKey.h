//===- StreamKey.h - Which accesses walk the same stream --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two accesses whose addresses differ by a small constant (A[i][k] and
// A[i][k+1] after unrolling, the load and the store of A[i] += x) touch the
// same stripes at the same time, so they can share one window. The key of
// an address is its scalar evolution with the constant part taken out
// (also out of the start of an add recurrence); accesses with the same key
// and offsets within StreamSpan bytes form one stream.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_STREAMKEY_H
#define IOPOLY_PLUGIN_TRANSFORM_STREAMKEY_H

#include <cstdint>
#include <utility>
#include <vector>

namespace llvm {
class SCEV;
class ScalarEvolution;
class Value;
} // namespace llvm

namespace iopoly {

/// Offsets of one stream lie within this many bytes.
constexpr int64_t StreamSpan = 256;

struct StreamKey {
  const llvm::SCEV *Base = nullptr; ///< the address without its constant part
  int64_t Offset = 0;               ///< the constant part (bytes)
  int64_t Tag = 0;                  ///< further separates streams (write or read, step)
};

/// \p S as (S - c, c) for its constant part c (0 if none).
std::pair<const llvm::SCEV *, int64_t> splitConstant(llvm::ScalarEvolution &SE, const llvm::SCEV *S);

/// The key of the address \p Ptr; \p Tag is compared as part of the key.
StreamKey streamKeyOf(llvm::ScalarEvolution &SE, const llvm::Value *Ptr, int64_t Tag);

/// Groups keyed items into streams: the result gives each item its stream,
/// numbered 0, 1, ... in the order of their first item.
template <typename T> std::vector<unsigned> groupStreams(const std::vector<std::pair<StreamKey, T>> &Items);

/// Non-template core of groupStreams.
std::vector<unsigned> groupStreamKeys(const std::vector<StreamKey> &Keys);

template <typename T> std::vector<unsigned> groupStreams(const std::vector<std::pair<StreamKey, T>> &Items) {
  std::vector<StreamKey> Keys;
  Keys.reserve(Items.size());
  for (const auto &KV : Items)
    Keys.push_back(KV.first);
  return groupStreamKeys(Keys);
}

} // namespace iopoly

#endif
