//===- Entry.h - The interposer's entry points (for Wrappers.cpp) -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MPI_ENTRY_H
#define IOPOLY_PROFILE_MPI_ENTRY_H

#include "mpi/Interposer.h"

namespace iopoly::prof::entry {

int init(int *Argc, char ***Argv, int Required, int *Provided);
int finalize();
int open(MPI_Comm Comm, const char *Name, int Amode, MPI_Info Info, MPI_File *Fh);
int close(MPI_File *Fh);
int access(MPI_File Fh, IoOp Op, Form How, bool Collective, bool Nonblocking, bool SplitBegin, MPI_Offset Off,
           const void *Buf, int Count, MPI_Datatype T, MPI_Status *St, MPI_Request *Req);
int splitEnd(MPI_File Fh, IoOp Op, Form How, MPI_Status *St);
int setView(MPI_File Fh, MPI_Offset Disp, MPI_Datatype Etype, MPI_Datatype Filetype, const char *Rep, MPI_Info Info);
int seek(MPI_File Fh, MPI_Offset Off, int Whence);
int seekShared(MPI_File Fh, MPI_Offset Off, int Whence);
int positionShared(MPI_File Fh, MPI_Offset *Off);
int setSize(MPI_File Fh, MPI_Offset Size);
int preallocate(MPI_File Fh, MPI_Offset Size);
int sync(MPI_File Fh);
int setAtomicity(MPI_File Fh, int Flag);
int getSize(MPI_File Fh, MPI_Offset *Size);
int remove(const char *Name, MPI_Info Info);
int barrier(MPI_Comm Comm);

int wait(MPI_Request *R, MPI_Status *St);
int waitall(int N, MPI_Request *R, MPI_Status *St);
int waitany(int N, MPI_Request *R, int *Index, MPI_Status *St);
int waitsome(int N, MPI_Request *R, int *Out, int *Indices, MPI_Status *St);
int test(MPI_Request *R, int *Flag, MPI_Status *St);
int testall(int N, MPI_Request *R, int *Flag, MPI_Status *St);
int testany(int N, MPI_Request *R, int *Index, int *Flag, MPI_Status *St);
int testsome(int N, MPI_Request *R, int *Out, int *Indices, MPI_Status *St);
int requestFree(MPI_Request *R);

} // namespace iopoly::prof::entry

#endif
