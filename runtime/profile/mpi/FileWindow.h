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
// explicit-offset ones.
//
// Creating a window is a collective call that costs milliseconds, so files
// opened on (a communicator congruent to) MPI_COMM_WORLD take a slot of one
// window made at MPI_Init (WorldSlots); other communicators get a window
// of their own; a one-rank communicator keeps the words locally.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MPI_FILEWINDOW_H
#define IOPOLY_PROFILE_MPI_FILEWINDOW_H

#include "mpi/Mpi.h"

#include <cstdint>
#include <mutex>
#include <vector>

namespace iopoly::prof {

/// The slots of the window made at MPI_Init, for files opened on all ranks.
class WorldSlots {
public:
  static constexpr int Slots = 1024;
  /// Collective over MPI_COMM_WORLD.
  void create();
  void free();
  bool ready() const { return Win != MPI_WIN_NULL; }
  MPI_Win window() const { return Win; }
  /// The lowest free slot (the same on every rank: opens and closes of
  /// these files are collective and in the same order), or -1.
  int take();
  void give(int Slot);

private:
  MPI_Win Win = MPI_WIN_NULL;
  int64_t *Base = nullptr;
  std::vector<bool> Used = std::vector<bool>(Slots, false);
  std::mutex Mu;
};

class FileWindow {
public:
  /// Collective over \p Comm (a window of its own).
  int create(MPI_Comm Comm);
  /// A slot of the world window; rank 0 resets it (callers synchronize).
  void attach(WorldSlots &W, int Slot, bool Root);
  /// Collective for a window of its own.
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
  bool Own = false;    ///< Win is ours to free
  int First = 0;       ///< displacement of the pointer word in Win
  WorldSlots *Pool = nullptr;
  int Slot = -1;
  int64_t *Base = nullptr;
  bool Local = true;
  int64_t Words[2] = {0, 0};
  std::mutex Mu;
};

} // namespace iopoly::prof

#endif
