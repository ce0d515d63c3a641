//===- Datatype.h - Flattening MPI datatypes into byte runs ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A filetype's typemap as contiguous runs (displacement, bytes), for
// ViewMap. Derived types are decoded with MPI_Type_get_envelope /
// MPI_Type_get_contents (contiguous, vector, hvector, indexed, hindexed,
// indexed_block, hindexed_block, struct, subarray, resized, dup); anything
// else (darray, Fortran types) is flattened by packing a labelled buffer
// through the type, when its true extent is at most 64 MiB.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MPI_DATATYPE_H
#define IOPOLY_PROFILE_MPI_DATATYPE_H

#include "common/Error.h"
#include "common/ViewMap.h"
#include "mpi/Mpi.h"

#include <vector>

namespace iopoly::prof {

/// Runs of one instance of \p T, in typemap order, adjacent runs merged.
Error flattenType(MPI_Datatype T, std::vector<TypeRun> &Out, size_t MaxRuns = 1u << 24);

/// Size and extent of \p T (MPI_Type_size_x / MPI_Type_get_extent_x).
uint64_t typeSize(MPI_Datatype T);
/// True when \p Count elements of \p T are one contiguous block of memory;
/// then \p Lb is where it starts relative to the buffer.
bool contiguousInMemory(MPI_Datatype T, int Count, MPI_Aint &Lb);

} // namespace iopoly::prof

#endif
