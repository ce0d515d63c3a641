//===- Glue.h - libiopoly_mpi's MPI life cycle -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_GLUE_H
#define IOPOLY_RUNTIME_MPI_GLUE_H

namespace iopoly {

/// MPI_Init as a program that never called it would have: only when an
/// MPI launcher started several ranks (see MpiGlue::startMpi). Returns
/// whether MPI runs.
bool startMpiForProgram();

} // namespace iopoly

#endif
