//===- Mpi.h - <mpi.h> for the C++ files of the runtime ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The C bindings only, whatever the C++ compiler: Open MPI's and MPICH's
// <mpi.h> otherwise pull in C++ bindings that libmpi does not provide.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_MPI_H
#define IOPOLY_RUNTIME_MPI_MPI_H

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#endif
