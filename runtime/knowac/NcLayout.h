//===- NcLayout.h - Where a variable's elements lie in a netCDF file -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The helper thread never calls PnetCDF (it is not thread-safe, and its
// collective calls belong to the main thread): it reads the file with
// pread. This file holds what that needs, taken from PnetCDF by the main
// thread: each variable's begin offset, type and shape, the record size;
// and the two pure functions on top: the byte runs of a box, and the copy
// of cached (big-endian, external) elements into the caller's buffer,
// exactly as PnetCDF lays them out (row-major, or by an imap).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_NCLAYOUT_H
#define IOPOLY_KNOWAC_NCLAYOUT_H

#include "Region.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iopoly {
namespace knowac {

/// netCDF external types (the NC_* codes of pnetcdf.h).
enum NcType : int {
  NcByte = 1, NcChar = 2, NcShort = 3, NcInt = 4, NcFloat = 5, NcDouble = 6,
  NcUByte = 7, NcUShort = 8, NcUInt = 9, NcInt64 = 10, NcUInt64 = 11,
};
/// Bytes of one element of \p T (0 for unknown types).
unsigned ncTypeSize(int T);

struct VarLayout {
  std::string Name;
  int XType = 0;
  unsigned ElemSize = 0;
  std::vector<int64_t> Dims; ///< lengths (a record variable's Dims[0] is the record count, kept current elsewhere)
  bool Record = false;
  int64_t Begin = 0;         ///< file offset of the first element (of record 0)
};

/// One contiguous piece of a box in the file.
struct ByteRun {
  int64_t FileOffset = 0;
  int64_t Bytes = 0;
  int64_t BufOffset = 0; ///< where it goes in the box's packed row-major order
};

/// The pieces of \p B in the file, in packed order; adjacent pieces are
/// merged. \p RecSize is the file's record size (record variables).
std::vector<ByteRun> byteRuns(const VarLayout &V, int64_t RecSize, const Box &B);

/// How a get's memory type relates to the variable's external type.
enum class Conv {
  None,          ///< not served from a cache (PnetCDF converts, may range-check)
  Same,          ///< same representation: byte order only
  FloatToDouble, ///< NC_FLOAT into double: exact
};
/// The conversion a get of memory type \p MemNcType (the NC_ code of the
/// buffer's element type) from a variable of type \p XType needs.
Conv convFor(int XType, int MemNcType);
/// Bytes of one element in memory under \p C for a variable of \p XType.
unsigned memElemSize(Conv C, int XType);

/// Copies the elements of \p Want (contained in \p Have) from \p Packed (the
/// elements of \p Have in packed row-major order, big-endian as in the
/// file) to \p Dst: row-major over Want's counts, or at the element offsets
/// of \p Imap when it is not null (varm).
void copyOut(const unsigned char *Packed, const Box &Have, unsigned ElemSize, const Box &Want,
             const int64_t *Imap, Conv C, void *Dst);

} // namespace knowac
} // namespace iopoly

#endif
