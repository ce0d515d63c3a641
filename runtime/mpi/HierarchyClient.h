//===- HierarchyClient.h - A compute rank of the cache hierarchy -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_HIERARCHYCLIENT_H
#define IOPOLY_RUNTIME_MPI_HIERARCHYCLIENT_H

#include "io/StripeRouter.h"
#include "mpi/Topology.h"

#include <memory>
#include <string>

namespace iopoly {

/// Inside MPI_Init, on every rank of MPI_COMM_WORLD (collective): reads
/// the topology, spawns its I/O-node and storage-node servers, and returns
/// this rank's router to its I/O node.
Status startHierarchy(const std::string &TopoPath, std::unique_ptr<StripeRouter> &Out);
/// Inside MPI_Finalize, once everything is written back: dismisses the
/// servers (collective).
void stopHierarchy(StripeRouter *R);

} // namespace iopoly

#endif
