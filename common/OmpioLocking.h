//===- OmpioLocking.h - Byte-range locks for Open MPI's OMPIO ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Open MPI before 4.1.7 (and 5.0.x before 5.0.6) writes noncontiguous
// collective data through OMPIO with data sieving (read, modify, write back
// a range that spans the gaps) but takes no file locks on local file
// systems, so a concurrent write by another process inside that range can
// be lost (Open MPI issue 12718; Debian 12 ships 4.1.4). Seen here as a rare
// read-back mismatch after a strided MPI_File_write_all. The fixed releases
// lock byte ranges by default; this asks the older ones for the same, before
// MPI_Init reads its parameters. A value the user set is kept.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_COMMON_OMPIOLOCKING_H
#define IOPOLY_COMMON_OMPIOLOCKING_H

#include <mpi.h>

#include <cstdlib>

namespace iopoly {

/// Call before PMPI_Init / PMPI_Init_thread. No effect with other MPIs.
inline void requestOmpioRangeLocks() {
#if defined(OMPI_MAJOR_VERSION) && defined(OMPI_MINOR_VERSION) && defined(OMPI_RELEASE_VERSION)
#if OMPI_MAJOR_VERSION < 4 || (OMPI_MAJOR_VERSION == 4 && (OMPI_MINOR_VERSION == 0 || (OMPI_MINOR_VERSION == 1 && OMPI_RELEASE_VERSION < 7))) || \
    (OMPI_MAJOR_VERSION == 5 && OMPI_MINOR_VERSION == 0 && OMPI_RELEASE_VERSION < 6)
  setenv("OMPI_MCA_fs_ufs_lock_algorithm", "3", /*overwrite=*/0); // 3: lock the ranges written
#endif
#endif
}

} // namespace iopoly

#endif
