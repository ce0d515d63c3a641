//===- Mpi.h - <mpi.h> for the C++ files of the profile layers ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Open MPI's and MPICH's C++ bindings are not wanted (they would need their
// own library at load time).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MPI_MPI_H
#define IOPOLY_PROFILE_MPI_MPI_H

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#endif
