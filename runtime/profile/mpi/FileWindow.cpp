//===- FileWindow.cpp - Shared pointer and logical size of a file ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/FileWindow.h"

namespace iopoly::prof {

void WorldSlots::create() {
  int Rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Aint Bytes = Rank == 0 ? 2 * Slots * static_cast<MPI_Aint>(sizeof(int64_t)) : 0;
  if (PMPI_Win_allocate(Bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &Base, &Win) != MPI_SUCCESS) {
    Win = MPI_WIN_NULL;
    return;
  }
  if (Rank == 0)
    for (int I = 0; I < 2 * Slots; ++I)
      Base[I] = 0;
  PMPI_Barrier(MPI_COMM_WORLD);
  // One passive epoch for the program's life: each operation is then an
  // atomic and a flush, without taking a lock.
  PMPI_Win_lock_all(MPI_MODE_NOCHECK, Win);
}

void WorldSlots::free() {
  if (Win == MPI_WIN_NULL)
    return;
  PMPI_Win_unlock_all(Win);
  PMPI_Win_free(&Win);
  Win = MPI_WIN_NULL;
}

int WorldSlots::take() {
  std::lock_guard<std::mutex> G(Mu);
  for (int I = 0; I < Slots; ++I)
    if (!Used[static_cast<size_t>(I)]) {
      Used[static_cast<size_t>(I)] = true;
      return I;
    }
  return -1;
}

void WorldSlots::give(int Slot) {
  std::lock_guard<std::mutex> G(Mu);
  if (Slot >= 0 && Slot < Slots)
    Used[static_cast<size_t>(Slot)] = false;
}

int FileWindow::create(MPI_Comm Comm) {
  int Size = 1, Rank = 0;
  PMPI_Comm_size(Comm, &Size);
  PMPI_Comm_rank(Comm, &Rank);
  Local = Size == 1;
  if (Local)
    return MPI_SUCCESS;
  int Rc = PMPI_Win_allocate(Rank == 0 ? 2 * sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL, Comm, &Base, &Win);
  if (Rc != MPI_SUCCESS) {
    Local = true; // keep going with per-process words: only shared pointers suffer
    Win = MPI_WIN_NULL;
    return Rc;
  }
  Own = true;
  if (Rank == 0) {
    PMPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, Win);
    Base[0] = 0;
    Base[1] = 0;
    PMPI_Win_unlock(0, Win);
  }
  PMPI_Barrier(Comm);
  PMPI_Win_lock_all(MPI_MODE_NOCHECK, Win);
  return MPI_SUCCESS;
}

void FileWindow::attach(WorldSlots &W, int S, bool Root) {
  Local = false;
  Own = false;
  Pool = &W;
  Slot = S;
  Win = W.window();
  First = 2 * S;
  if (Root) {
    setPointer(0);
    setSize(0);
  }
}

void FileWindow::free() {
  if (Own && Win != MPI_WIN_NULL) {
    PMPI_Win_unlock_all(Win);
    PMPI_Win_free(&Win);
  }
  if (Pool)
    Pool->give(Slot);
  Pool = nullptr;
  Win = MPI_WIN_NULL;
}

int64_t FileWindow::rmw(int Disp, int64_t Operand, MPI_Op Op) {
  if (Local || Win == MPI_WIN_NULL) {
    std::lock_guard<std::mutex> G(Mu);
    int64_t Old = Words[Disp];
    if (Op == MPI_SUM)
      Words[Disp] += Operand;
    else if (Op == MPI_MAX)
      Words[Disp] = Operand > Old ? Operand : Old;
    else if (Op == MPI_REPLACE)
      Words[Disp] = Operand;
    return Old;
  }
  int64_t Old = 0;
  PMPI_Fetch_and_op(&Operand, &Old, MPI_INT64_T, 0, First + Disp, Op, Win);
  PMPI_Win_flush(0, Win);
  return Old;
}

int64_t FileWindow::fetchAddPointer(int64_t N) { return rmw(0, N, MPI_SUM); }
int64_t FileWindow::pointer() { return rmw(0, 0, MPI_NO_OP); }
void FileWindow::setPointer(int64_t V) { rmw(0, V, MPI_REPLACE); }
uint64_t FileWindow::raiseSize(uint64_t End) { return static_cast<uint64_t>(rmw(1, static_cast<int64_t>(End), MPI_MAX)); }
uint64_t FileWindow::size() { return static_cast<uint64_t>(rmw(1, 0, MPI_NO_OP)); }
void FileWindow::setSize(uint64_t V) { rmw(1, static_cast<int64_t>(V), MPI_REPLACE); }

} // namespace iopoly::prof
