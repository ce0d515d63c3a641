//===- FileWindow.h - Shared pointer and logical size of a file --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two 64-bit words at rank 0 of the file's communicator, in an MPI window
// (passive target, atomics): the shared file pointer (etypes) and the
// logical file size (bytes: the largest end written anywhere, node-local
// data included). The layers keep the shared pointer themselves so that
// every shared-pointer access has an exact offset (MPI_File_write_shared
// from several ranks is otherwise unknowable); below them such calls become
// explicit-offset ones. A one-rank communicator keeps the words locally.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MPI_FILEWINDOW_H
#define IOPOLY_PROFILE_MPI_FILEWINDOW_H

#include "mpi/Mpi.h"

#include <cstdint>
#include <mutex>

namespace iopoly::prof {

class FileWindow {
public:
  /// Collective over \p Comm.
  int create(MPI_Comm Comm);
  /// Collective.
  void free();
  /// Atomically adds \p N to the shared pointer; returns the old value.
  int64_t fetchAddPointer(int64_t N);
  int64_t pointer();
  /// Rank 0 only; callers synchronize afterwards.
  void setPointer(int64_t V);
  /// Raises the logical size to at least \p End; returns the old size.
  uint64_t raiseSize(uint64_t End);
  uint64_t size();
  /// Rank 0 only (MPI_File_set_size); callers synchronize afterwards.
  void setSize(uint64_t V);

private:
  int64_t rmw(int Disp, int64_t Operand, MPI_Op Op);
  MPI_Win Win = MPI_WIN_NULL;
  int64_t *Base = nullptr;
  bool Local = true;
  int64_t Words[2] = {0, 0};
  std::mutex Mu;
};

} // namespace iopoly::prof

#endif
