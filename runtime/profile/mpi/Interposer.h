//===- Interposer.h - What the MPI-IO wrappers share -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Wrappers.cpp defines MPI_File_* (and MPI_Init/Finalize, Barrier, Wait/
// Test) and calls the PMPI_ symbols below them, so the layers stack with
// other PMPI tools. Everything those wrappers have in common lives here:
// the open files and their views, exact offsets for every form of access
// (individual and shared pointers, ordered), the mapping through the view
// to file bytes, the log, and nonblocking requests. What is done with an
// access is the Layer's business: libiopoly_profile.so passes it through,
// libiopoly_partition.so routes it by the plan.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MPI_INTERPOSER_H
#define IOPOLY_PROFILE_MPI_INTERPOSER_H

#include "common/ViewMap.h"
#include "log/LogWriter.h"
#include "mpi/FileWindow.h"
#include "mpi/Mpi.h"
#include "mpi/Options.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace iopoly::prof {

/// How the program addressed the data.
enum class Form : uint8_t { At, Indiv, Shared, Ordered };

/// A piece as it was served (what goes into the log).
struct Served {
  IoOp Op = IoOp::Read;
  uint64_t FileOff = 0, Len = 0;
  Target Where = Target::Shared;
  uint32_t Peer = 0;
  bool Internal = false; ///< the layer's own traffic (staging, gather)
  uint64_t LocalOff = kNoLocal; ///< where in the node-local file
  bool Collective = false;      ///< part of a collective call of the layer
  bool Concurrent = false;      ///< issued together with the previous piece
};

/// Per-file state a layer keeps.
struct LayerFile {
  virtual ~LayerFile() = default;
};

struct OpenFile {
  MPI_File Fh = MPI_FILE_NULL;
  std::string Path;                ///< canonical absolute path
  MPI_Comm Comm = MPI_COMM_NULL;   ///< a duplicate of the open communicator
  bool CommShared = false;         ///< Comm is the runtime's duplicate of MPI_COMM_WORLD
  int CommRank = 0, CommSize = 1, Amode = 0;
  uint64_t Instance = 0;           ///< the same on every rank of the open
  uint32_t LogId = 0;
  ViewMap View;                    ///< the current view, flattened
  bool ViewKnown = true;           ///< false: filetype could not be flattened
  bool Native = true;              ///< datarep "native"
  bool Atomic = false;
  FileWindow Win;
  std::unique_ptr<LayerFile> State;

  struct SplitOp { ///< a split collective between _begin and _end
    bool Active = false;
    IoOp Op = IoOp::Read;
    bool AtForm = false; ///< PMPI_*_at_all_begin was used
    uint16_t Flags = 0;
    uint64_t Start = 0;
    uint32_t Call = 0;
    std::vector<Served> Pieces;
    bool FixStatus = false;
    uint64_t DoneBytes = 0;
  } Split;
};

struct AccessReq {
  IoOp Op = IoOp::Read;
  Form How = Form::At;
  bool Collective = false, Nonblocking = false, SplitBegin = false;
  MPI_Offset Offset = 0; ///< etypes, resolved for every form
  void *Buf = nullptr;
  int Count = 0;
  MPI_Datatype Type = MPI_BYTE;
  uint64_t Bytes = 0;         ///< Count * size of Type
  MPI_Status *Status = MPI_STATUS_IGNORE;
  MPI_Request *Request = nullptr;
  std::vector<Piece> Pieces;  ///< file pieces of the data stream (view known)
  // Set by the layer:
  std::vector<Served> Log;    ///< pieces as served
  bool Pending = false;       ///< a real MPI request completes it later
  bool FixStatus = false;     ///< the status must say DoneBytes bytes
  uint64_t DoneBytes = 0;
};

class Layer {
public:
  virtual ~Layer() = default;
  virtual const char *name() const = 0;
  /// The thread level to ask MPI for, given the program's.
  virtual int threadLevel(int Required) { return Required; }
  /// Just before PMPI_Init_thread (options are read).
  virtual void beforeInit() {}
  /// After MPI_Init (options read, rank known). Returns false to stay off.
  virtual bool start() { return true; }
  /// Collective: the file was opened and registered. A failure closes it
  /// again and MPI_File_open fails with that code.
  virtual int opened(OpenFile &) { return MPI_SUCCESS; }
  /// Collective: before PMPI_File_close.
  virtual int closing(OpenFile &) { return MPI_SUCCESS; }
  /// Collective: after PMPI_File_close (the handle is gone).
  virtual void closed(OpenFile &) {}
  /// Performs the access (the default passes it through).
  virtual int access(OpenFile &F, AccessReq &R);
  /// Collective hooks after the PMPI call succeeded.
  virtual int viewChanged(OpenFile &) { return MPI_SUCCESS; }
  virtual int sizeSet(OpenFile &, MPI_Offset) { return MPI_SUCCESS; }
  virtual int synced(OpenFile &) { return MPI_SUCCESS; }
  virtual int atomicitySet(OpenFile &, int) { return MPI_SUCCESS; }
  virtual int fileSize(OpenFile &F, MPI_Offset *Size) { return PMPI_File_get_size(F.Fh, Size); }
  /// Before PMPI_Finalize, after open files were closed by the core.
  virtual void finalizing() {}
};

/// Each library defines the layer it runs.
Layer *createLayer();

/// The MPI call the program made, unchanged (shared and ordered forms
/// become explicit-offset calls at R.Offset).
int passThrough(OpenFile &F, AccessReq &R);

struct Runtime {
  Options Opt;
  bool Active = false;          ///< options parsed, MPI initialized by us seen
  bool Finalized = false;
  int WorldRank = 0, WorldSize = 1;
  std::string Host, Program;
  uint64_t RunId = 0, T0 = 0;   ///< T0: monotonic ns
  LogWriter Log;
  bool Logging = false;
  MPI_Comm WorldDup = MPI_COMM_NULL; ///< for files opened on all ranks
  WorldSlots Slots;                  ///< their shared pointers and sizes
  std::atomic<uint32_t> Calls{0};
  Layer *L = nullptr;

  uint64_t now() const;
  uint32_t nextCall() { return Calls.fetch_add(1, std::memory_order_relaxed); }
  void logAccess(const OpenFile &F, uint16_t Flags, const std::vector<Served> &Pieces, uint64_t Start,
                 uint64_t End, uint32_t Call);
  void logEvent(uint32_t File, EventKind E, uint16_t Flags, uint64_t A0, uint64_t A1, uint64_t A2, uint64_t Start,
                uint64_t End, uint32_t Call);
};

Runtime &runtime();

/// Set while a wrapper runs, so that MPI's own POSIX calls are not logged.
extern thread_local int InMpi;

/// The open file of a handle (null if unknown).
OpenFile *findFile(MPI_File Fh);

} // namespace iopoly::prof

#endif
