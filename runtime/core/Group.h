//===- Group.h - Ranks that share an array, seen from the core --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// libiopoly never links MPI. An array shared by the ranks of a communicator
// is opened, synchronized and closed through this interface, which the MPI
// glue library (libiopoly_mpi.so, runtime/mpi/) implements on an MPI_Comm.
// The glue registers itself with __iopoly_mpi_register() from its
// constructor; the core then defers disk-resident globals to MPI_Init and
// learns about MPI_Init, barriers and MPI_Finalize through __iopoly_mpi_event.
// Both sides are compiled from these headers, so the classes cross the
// library boundary by pointer and virtual call only.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_GROUP_H
#define IOPOLY_RUNTIME_GROUP_H

#include "core/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace iopoly {

class StripeRouter;

/// The ranks that share one array. Every call is collective over them.
class Group {
public:
  virtual ~Group() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every rank learns the failure of the lowest failing rank ("rank r:
  /// message"), or success when no rank failed.
  virtual Status agree(const Status &Mine) = 0;
  /// Fails on every rank, naming a rank and both texts, unless all ranks
  /// passed the same \p Text (\p What says what it describes).
  virtual Status same(const std::string &What, const std::string &Text) = 0;
  /// Rank \p Root's \p Bits reach every rank.
  virtual void broadcast(std::vector<unsigned long long> &Bits, int Root) = 0;
  /// Bitwise AND of every rank's \p Bits (same length everywhere).
  virtual void allAnd(std::vector<unsigned long long> &Bits) = 0;
  /// Element-wise sum of every rank's \p V (same length everywhere).
  virtual void allSum(std::vector<unsigned long long> &V) = 0;
  virtual void barrier() = 0;
  /// The MPI_Comm* of the group, for the MPI-IO backend; opaque here.
  virtual const void *comm() const = 0;
  /// Whether every rank of the group belongs to the communicator \p Comm
  /// (an MPI_Comm*): a barrier on \p Comm is then a sync point of ours.
  virtual bool coveredBy(const void *Comm) const = 0;
  /// "MPI_COMM_WORLD (4 ranks)", for messages and statistics.
  virtual std::string describe() const = 0;
};

/// What the MPI glue offers the core.
class MpiGlue {
public:
  virtual ~MpiGlue() = default;
  /// Whether the program has called MPI_Init (and not MPI_Finalize).
  virtual bool active() const = 0;
  /// The group that shares disk-resident globals and iopoly_alloc memory:
  /// the ranks of MPI_COMM_WORLD whose disk directories are the same
  /// (after %r/%h/%p). Null before MPI_Init.
  virtual std::shared_ptr<Group> dataGroup() = 0;
  /// The storage-cache hierarchy's router (IOPOLY_TOPOLOGY), null without.
  virtual StripeRouter *router() { return nullptr; }
  /// A program that was started by an MPI launcher on several ranks uses
  /// disk-resident memory before it calls MPI_Init (or never calls it):
  /// start MPI now (as MPI_Init would, the program's own MPI_Init later is
  /// adopted) and finalize it at exit. Returns whether MPI runs now.
  virtual bool startMpi() { return false; }
};

/// Events the glue reports (__iopoly_mpi_event).
enum class MpiEvent : int {
  Initialized = 1, ///< MPI_Init/MPI_Init_thread returned; Comm unused
  Barrier = 2,     ///< MPI_Barrier(*Comm) is starting
  Finalizing = 3,  ///< MPI_Finalize is starting
  /// A distributed loop starts: a sync point of every shared array, then
  /// evictions write through to the shared files (the ranks write
  /// disjoint elements) until DistEnd.
  DistBegin = 4,
  DistEnd = 5,     ///< it ended: evictions are private again (SpillStore.h)
};

/// The registered glue, or null (the program does not link libiopoly_mpi).
MpiGlue *mpiGlue();

/// For __iopoly_global_init: in a program linked with libiopoly_mpi that
/// has not called MPI_Init yet, gives the global its addresses in \p Slot
/// and leaves the files to MPI_Init (the ranks then share it); returns
/// false when the global is to be opened now as before.
bool deferGlobal(const char *Name, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout, const void *Init,
                 void **Slot);

} // namespace iopoly

extern "C" {
/// Called once by libiopoly_mpi's constructor.
__attribute__((visibility("default"))) void __iopoly_mpi_register(iopoly::MpiGlue *Glue);
/// Called by libiopoly_mpi's MPI wrappers; 0 or -1 with iopoly_last_error().
__attribute__((visibility("default"))) int __iopoly_mpi_event(int Event, const void *Comm);
/// iopoly_open_layout on the ranks of \p G (collective); null + last error.
__attribute__((visibility("default"))) struct iopoly_array *
__iopoly_open_shared(const char *Name, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout, int Flags,
                     const std::shared_ptr<iopoly::Group> *G);
/// iopoly_alloc_flags on the ranks of \p G (collective); null + last error.
__attribute__((visibility("default"))) void *__iopoly_alloc_shared(const char *Name, size_t Bytes, int Flags,
                                                                   const std::shared_ptr<iopoly::Group> *G);
/// Records \p Msg as the calling thread's iopoly_last_error() (the glue's
/// own copy of the error helpers has another thread-local).
__attribute__((visibility("default"))) void __iopoly_set_error(const char *Msg);
/// The disk directories in force, one per line, made absolute: ranks
/// with the same text share disk-resident globals.
__attribute__((visibility("default"))) const char *__iopoly_disk_key(void);
}

#endif
