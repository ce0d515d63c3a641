//===- Layout.h - File layout and striping of one array ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The mappings of paper 1, Fig. 2: an element's index goes through the
// array's file layout (a dimension permutation, section 4) to a byte offset
// in the file; the file is cut into stripes of S bytes placed round-robin on
// T disks (the disk mapping D of section 3). Stripe b lives on disk b mod T,
// in slot b div T of that disk's file, after a header of HeaderBytes.
// Every slot is a whole stripe (the last one is zero-padded) so that O_DIRECT
// transfers stay aligned.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_LAYOUT_H
#define IOPOLY_RUNTIME_LAYOUT_H

#include "core/Error.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace iopoly {

/// Bytes reserved at the start of every disk file for its header. A
/// multiple of 4096 so that stripes stay aligned for O_DIRECT.
constexpr uint64_t HeaderBytes = 4096;

struct Geometry {
  size_t ElemSize = 0;
  std::vector<size_t> Dims;  ///< extents in the program's index order
  std::vector<int> Layout;   ///< file dimension k is program dimension Layout[k]
  size_t TotalBytes = 0;     ///< product of Dims times ElemSize
  size_t StripeSize = 0;     ///< S
  size_t NumDisks = 0;       ///< T

  /// Validates the shape (positive extents, no overflow, a permutation,
  /// disk files no larger than a file offset can address) and fills \p Out.
  /// \p Layout may be null (row-major).
  static Status make(size_t ElemSize, int NDims, const size_t *Dims,
                     const int *Layout, size_t StripeSize, size_t NumDisks,
                     Geometry &Out);

  /// ceil(TotalBytes / S), without the overflow of TotalBytes + S - 1.
  size_t numStripes() const { return TotalBytes / StripeSize + (TotalBytes % StripeSize != 0); }
  size_t diskOf(size_t Stripe) const { return Stripe % NumDisks; }
  size_t slotOf(size_t Stripe) const { return Stripe / NumDisks; }
  /// Useful bytes of stripe \p Stripe (S except for the last one).
  size_t stripeBytes(size_t Stripe) const {
    size_t Start = Stripe * StripeSize;
    return TotalBytes - Start < StripeSize ? TotalBytes - Start : StripeSize;
  }
  /// Number of stripes stored on disk \p Disk.
  size_t slotsOnDisk(size_t Disk) const;
  /// Offset of stripe \p Stripe inside its disk file.
  uint64_t fileOffset(size_t Stripe) const {
    return HeaderBytes + static_cast<uint64_t>(slotOf(Stripe)) * StripeSize;
  }
  /// Exact size of the file of disk \p Disk.
  uint64_t expectedFileSize(size_t Disk) const {
    return HeaderBytes + static_cast<uint64_t>(slotsOnDisk(Disk)) * StripeSize;
  }
  /// Byte offset of element \p Index (program order) in the file layout.
  size_t elementOffset(const size_t *Index) const;
  bool isRowMajor() const;
  /// "0,1,2" style rendering of Layout.
  std::string layoutString() const;
  /// "row-major", "column-major" (2-D) or "dimension order 2,0,1".
  std::string layoutName() const;
  std::string dimsString() const;
};

} // namespace iopoly

#endif
