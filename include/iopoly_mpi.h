/*===- iopoly_mpi.h - Disk-resident arrays shared by MPI ranks -------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Arrays opened on a communicator are one striped file set for all its
 * ranks: the call is collective (every rank passes the same arguments, or
 * every rank gets an error naming the rank that differs), rank 0 creates or
 * checks the files, and every rank then opens them (with
 * IOPOLY_BACKEND=mpiio, one MPI file per disk on the communicator). Each
 * rank caches stripes in its own buffer; changes made by one rank are seen
 * by the others after a sync point: iopoly_sync(a), MPI_Barrier on a
 * communicator holding all the array's ranks, the end of a distributed loop,
 * iopoly_close, MPI_Finalize (see the README, "Arrays shared by MPI
 * ranks"). Ranks writing different bytes, even of the same stripe, never
 * overwrite each other.
 *
 * Link with -liopoly_mpi -liopoly before the MPI library (iopoly-mpicc does;
 * CMake: IOPoly::mpi). Disk-resident globals of programs linked so are
 * shared by the ranks with the same disk directories; iopoly_alloc after
 * MPI_Init likewise. iopoly_open stays private to the calling process.
 *===----------------------------------------------------------------------===*/
#ifndef IOPOLY_MPI_H
#define IOPOLY_MPI_H

#include "iopoly.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** iopoly_open_layout, collectively on the ranks of \p comm (an
 *  intra-communicator; it is duplicated, \p comm stays the caller's).
 *  \p layout may be NULL (row-major). Closing (iopoly_close) and
 *  iopoly_flush of the array are collective too. */
IOPOLY_API iopoly_array *iopoly_open_comm(const char *name, size_t elem_size, int ndims, const size_t dims[],
                                          const int layout[], int flags, MPI_Comm comm);

/** iopoly_alloc_flags, collectively on the ranks of \p comm: every rank
 *  gets its own address for the same shared memory. iopoly_free is
 *  collective. */
IOPOLY_API void *iopoly_alloc_comm(const char *name, size_t bytes, int flags, MPI_Comm comm);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* IOPOLY_MPI_H */
