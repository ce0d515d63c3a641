//===- ViewMap.h - MPI-IO file views as byte maps ----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A file view (displacement, etype, filetype) turns the data stream of a
// read or write into file bytes: the filetype, flattened into its
// contiguous runs, is tiled from the displacement every `extent` bytes, and
// the stream fills the runs in order. ViewMap holds the flattened runs and
// maps stream ranges to file pieces; it knows nothing of MPI, so the
// partitioner, the tools and the tests use it directly.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_COMMON_VIEWMAP_H
#define IOPOLY_PROFILE_COMMON_VIEWMAP_H

#include <cstdint>
#include <vector>

namespace iopoly::prof {

/// One contiguous run of a flattened datatype: Len bytes at Disp.
struct TypeRun {
  int64_t Disp = 0;
  uint64_t Len = 0;
};

/// A piece of an access: Len file bytes at FileOff hold bytes
/// [StreamPos, StreamPos + Len) of the access's data (0 = its first byte).
struct Piece {
  uint64_t FileOff = 0, Len = 0, StreamPos = 0;
};

class ViewMap {
public:
  /// The default view: displacement 0, etype and filetype MPI_BYTE.
  ViewMap() : ViewMap(0, 1, {{0, 1}}, 1) {}
  /// \p Runs in typemap order (nondecreasing displacements, as MPI requires
  /// of filetypes); adjacent runs are merged here.
  ViewMap(uint64_t Disp, uint64_t EtypeSize, std::vector<TypeRun> Runs, uint64_t Extent);

  /// Appends the file pieces of stream bytes [Pos, Pos + N) to \p Out
  /// (StreamPos counted from Pos),
  /// merging pieces that are adjacent in the file and in the stream.
  void map(uint64_t Pos, uint64_t N, std::vector<Piece> &Out) const;
  /// File offset of stream byte \p Pos (MPI_File_get_byte_offset).
  uint64_t fileOffset(uint64_t Pos) const;
  /// Stream bytes that lie before file offset \p FileOff (the view's end of
  /// file for MPI_SEEK_END).
  uint64_t streamBytesBefore(uint64_t FileOff) const;

  uint64_t disp() const { return Disp; }
  uint64_t etypeSize() const { return EtypeSize; }
  uint64_t tileSize() const { return Size; }
  uint64_t tileExtent() const { return Extent; }
  const std::vector<TypeRun> &runs() const { return Runs; }
  /// True when stream byte p is file byte disp + p (no holes).
  bool contiguous() const { return Contig; }

private:
  uint64_t Disp, EtypeSize, Size = 0, Extent;
  std::vector<TypeRun> Runs;
  std::vector<uint64_t> Start; ///< stream position of each run in a tile
  bool Contig = false;
};

} // namespace iopoly::prof

#endif
