//===- Layout.cpp - File layout and striping of one array ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Layout.h"

#include "iopoly.h"

namespace iopoly {

Status Geometry::make(size_t ElemSize, int NDims, const size_t *Dims,
                      const int *Layout, size_t StripeSize, size_t NumDisks,
                      Geometry &Out) {
  if (ElemSize == 0)
    return Status::error(ErrorCode::InvalidArgument, "element size is 0");
  if (NDims < 1 || NDims > IOPOLY_MAX_DIMS)
    return Status::error(format("%d dimensions (supported: 1..%d)", NDims, IOPOLY_MAX_DIMS));
  if (!Dims)
    return Status::error(ErrorCode::InvalidArgument, "dims is NULL");
  Geometry G;
  G.ElemSize = ElemSize;
  G.StripeSize = StripeSize;
  G.NumDisks = NumDisks;
  size_t Total = ElemSize;
  for (int I = 0; I < NDims; ++I) {
    if (Dims[I] == 0)
      return Status::error(format("dimension %d has extent 0", I));
    if (__builtin_mul_overflow(Total, Dims[I], &Total))
      return Status::error(ErrorCode::TooLarge, "the array size overflows 64 bits");
    G.Dims.push_back(Dims[I]);
  }
  G.TotalBytes = Total;
  if (StripeSize == 0 || NumDisks == 0)
    return Status::error(ErrorCode::InvalidArgument, "stripe size and disk count must be positive");
  // Disk 0 holds the most slots; its file must stay below 2^63 bytes.
  uint64_t MaxSlots = (static_cast<uint64_t>(INT64_MAX) - HeaderBytes) / StripeSize;
  if (G.slotsOnDisk(0) > MaxSlots)
    return Status::error(ErrorCode::TooLarge,
                         format("%zu bytes on %zu disks need files larger than 2^63 bytes", Total, NumDisks));
  std::vector<bool> Seen(NDims, false);
  for (int I = 0; I < NDims; ++I) {
    int D = Layout ? Layout[I] : I;
    if (D < 0 || D >= NDims || Seen[D])
      return Status::error(ErrorCode::InvalidArgument, "layout is not a permutation of the dimensions");
    Seen[D] = true;
    G.Layout.push_back(D);
  }
  Out = std::move(G);
  return {};
}

size_t Geometry::slotsOnDisk(size_t Disk) const {
  size_t N = numStripes();
  return N / NumDisks + (Disk < N % NumDisks ? 1 : 0);
}

size_t Geometry::elementOffset(const size_t *Index) const {
  size_t Linear = 0;
  for (int D : Layout)
    Linear = Linear * Dims[D] + Index[D];
  return Linear * ElemSize;
}

bool Geometry::isRowMajor() const {
  for (size_t I = 0; I < Layout.size(); ++I)
    if (Layout[I] != static_cast<int>(I))
      return false;
  return true;
}

std::string Geometry::layoutString() const {
  std::string S;
  for (size_t I = 0; I < Layout.size(); ++I)
    S += (I ? "," : "") + std::to_string(Layout[I]);
  return S;
}

std::string Geometry::layoutName() const {
  if (isRowMajor())
    return "row-major";
  bool Reversed = true;
  for (size_t I = 0; I < Layout.size(); ++I)
    Reversed &= Layout[I] == static_cast<int>(Layout.size() - 1 - I);
  return Reversed ? "column-major" : "dimension order " + layoutString();
}

std::string Geometry::dimsString() const {
  std::string S;
  for (size_t I = 0; I < Dims.size(); ++I)
    S += (I ? "x" : "") + std::to_string(Dims[I]);
  return S;
}

} // namespace iopoly
