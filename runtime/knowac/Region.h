//===- Region.h - Regions of a variable and their shape-relative keys -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A Box is the index set of one PnetCDF access: start, count and stride per
// dimension (var, var1, vara, vars and varm all describe one). The
// accumulation graph remembers regions by a key relative to the variable's
// shape, so that what was learned on one input applies to another of a
// different size (paper 5, Fig. 10):
//   "*"          the whole dimension
//   "=7"         the single index 7 (a time step, a layer)
//   "1/4+1/4"    a range as fractions of the dimension: start at 1/4 of
//                it, 1/4 of it long (a rank's share of the cells)
//   "...:2"      a stride other than 1 is appended
// A key materializes back into a Box only when the fractions give whole
// indices inside the current shape.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_REGION_H
#define IOPOLY_KNOWAC_REGION_H

#include <cstdint>
#include <string>
#include <vector>

namespace iopoly {
namespace knowac {

struct Box {
  std::vector<int64_t> Start, Count, Stride; ///< Stride >= 1 in every dimension

  size_t rank() const { return Start.size(); }
  /// Number of elements (0 if any count is 0).
  uint64_t elements() const;
  /// Every element of \p O is an element of this box.
  bool contains(const Box &O) const;
  /// The bounding ranges intersect in every dimension (conservative).
  bool overlaps(const Box &O) const;
  bool operator==(const Box &O) const {
    return Start == O.Start && Count == O.Count && Stride == O.Stride;
  }
  std::string str() const; ///< "[0:4, 10:2:3]" (start:count[:stride])
};

/// Lengths of a variable's dimensions now (the record dimension's length
/// is the current number of records).
struct Shape {
  std::vector<int64_t> Len;
};

/// The shape-relative key of \p B (see the file comment).
std::string regionKey(const Box &B, const Shape &S);

/// The box that \p Key denotes in \p S; false if it does not fit (wrong
/// rank, an index outside, fractions that are not whole indices).
bool materialize(const std::string &Key, const Shape &S, Box &Out);

} // namespace knowac
} // namespace iopoly

#endif
