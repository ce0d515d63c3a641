//===- SubscriptExtents.h - How far the elements of one key spread -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The box of elements a data tile or a loop tile touches, per subscript:
// used by the data tiles (DataTiling) and the footprint models
// (FootprintModel) alike.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_SUBSCRIPTEXTENTS_H
#define IOPOLY_PLUGIN_ANALYSIS_SUBSCRIPTEXTENTS_H

#include "isl/isl-noexceptions.h"

#include <cstdint>
#include <vector>

namespace iopoly {

/// Per subscript of { key -> elements } \p KeyToElem (without parameters,
/// \p N subscripts), one more than the largest difference of two elements
/// with the same key, over all keys. False when one is unbounded.
bool subscriptExtents(const isl::map &KeyToElem, unsigned N, std::vector<uint64_t> &Ext);

} // namespace iopoly

#endif
