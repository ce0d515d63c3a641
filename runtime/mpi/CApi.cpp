//===- CApi.cpp - include/iopoly_mpi.h -------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Arrays on a communicator: the communicator is duplicated into a Group
// and the core opens the array on it (runtime/core/SharedArrays.cpp).
//
//===----------------------------------------------------------------------===//
#include "iopoly_mpi.h"

#include "mpi/MpiGroup.h"

using namespace iopoly;

namespace {

/// iopoly_last_error() lives in libiopoly: errors are recorded there.
void setError(const std::string &Msg) { __iopoly_set_error(Msg.c_str()); }

/// The group of \p Comm, or null with the error recorded.
std::shared_ptr<Group> groupOf(MPI_Comm Comm, const char *Fn) {
  int Init = 0, Fin = 0;
  PMPI_Initialized(&Init);
  PMPI_Finalized(&Fin);
  if (!Init || Fin) {
    setError(format("%s: MPI is not running (call it between MPI_Init and MPI_Finalize)", Fn));
    return nullptr;
  }
  if (Comm == MPI_COMM_NULL) {
    setError(format("%s: the communicator is MPI_COMM_NULL", Fn));
    return nullptr;
  }
  int Inter = 0;
  PMPI_Comm_test_inter(Comm, &Inter);
  if (Inter) {
    setError(format("%s: the communicator is an inter-communicator; use an intra-communicator", Fn));
    return nullptr;
  }
  std::string Desc = Comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : Comm == MPI_COMM_SELF ? "MPI_COMM_SELF" : "the communicator";
  std::shared_ptr<MpiGroup> G;
  if (Status S = MpiGroup::make(Comm, Desc, G)) {
    setError(format("%s: %s", Fn, S.message().c_str()));
    return nullptr;
  }
  return G;
}

} // namespace

extern "C" {

iopoly_array *iopoly_open_comm(const char *name, size_t elem_size, int ndims, const size_t dims[], const int layout[],
                               int flags, MPI_Comm comm) {
  __iopoly_set_error("");
  std::shared_ptr<Group> G = groupOf(comm, "iopoly_open_comm");
  if (!G)
    return nullptr;
  return __iopoly_open_shared(name, elem_size, ndims, dims, layout, flags, &G);
}

void *iopoly_alloc_comm(const char *name, size_t bytes, int flags, MPI_Comm comm) {
  __iopoly_set_error("");
  std::shared_ptr<Group> G = groupOf(comm, "iopoly_alloc_comm");
  if (!G)
    return nullptr;
  return __iopoly_alloc_shared(name, bytes, flags, &G);
}

} // extern "C"
