//===- ProfileFormat.h - The binary profile log (IOPOLY_PROFILE) -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one definition of the log that libiopoly_profile.so (and
// libiopoly_partition.so) write and iopoly-profile / iopoly-partition read.
// Little-endian, no padding beyond what is spelled out here.
//
// A log is a sequence of sections, one per rank and run; a file holds one
// section (per-rank mode) or several concatenated (merged mode; `cat` of
// per-rank files gives the same). A section is a sequence of records; the
// first byte of each record tells its kind:
//
//   'I'  section header: "IOPPROF" + version byte '1', then HeaderFixed and
//        the host name, program name and local-store directory (no NULs)
//   'F'  a file opened: FileRecord + its absolute path; ids are per section
//   'A'  an access: AccessRecord (64 bytes), one per contiguous file range
//        (a noncontiguous call gives several records with the same Call)
//   'E'  an event: EventRecord (56 bytes): open, close, set_view, ...
//
// Offsets and lengths are file bytes (through the file view); times are
// nanoseconds since the section's T0 (CLOCK_MONOTONIC), and T0 is also
// given in CLOCK_REALTIME to line ranks up. A truncated last record (a run
// that crashed) is dropped by the reader with a warning.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_LOG_PROFILEFORMAT_H
#define IOPOLY_PROFILE_LOG_PROFILEFORMAT_H

#include <cstdint>

namespace iopoly::prof {

constexpr char kLogMagic[8] = {'I', 'O', 'P', 'P', 'R', 'O', 'F', '1'};
constexpr uint32_t kLogVersion = 1;
constexpr uint64_t kNoLocal = ~0ull; ///< AccessRecord::LocalOff when not node-local
constexpr uint32_t kNoFile = 0xffffffffu; ///< File of process-wide events

enum RecordKind : uint8_t { RecHeader = 'I', RecFile = 'F', RecAccess = 'A', RecEvent = 'E' };

enum class IoOp : uint8_t { Read = 0, Write = 1 };

/// AccessRecord::Flags: how the program asked for the access.
enum AccessFlag : uint16_t {
  AfCollective = 1 << 0,  ///< _all, _ordered, split collectives
  AfNonblocking = 1 << 1, ///< MPI_File_i*; End is the completion (wait/test)
  AfSharedPtr = 1 << 2,   ///< shared file pointer (_shared, _ordered)
  AfOrdered = 1 << 3,     ///< _ordered
  AfIndivPtr = 1 << 4,    ///< individual file pointer (no _at)
  AfPosix = 1 << 5,       ///< POSIX read/write/pread/pwrite
  AfInternal = 1 << 6,    ///< traffic of the partition layer (staging, gather)
  AfViewUnknown = 1 << 7, ///< the view could not be flattened: stream bytes
  AfSplit = 1 << 8,       ///< split collective (_begin/_end)
  AfIncomplete = 1 << 9,  ///< nonblocking, never seen to complete
  AfFailed = 1 << 10,     ///< the call returned an error
  AfConcurrent = 1 << 11, ///< issued together with the previous record (not after it)
};

/// Where the partition layer served the bytes (0 for plain profiles).
enum class Target : uint16_t {
  Shared = 0, ///< the shared (central) file
  Local = 1,  ///< this rank's node-local store
  Remote = 2, ///< the node-local store of rank Peer (sent over MPI)
  Push = 3,   ///< a broadcast update sent to rank Peer's local store
};

enum class EventKind : uint8_t {
  Open = 1,     ///< Arg0 amode, Arg1 comm size, Arg2 file size after open
  Close,        ///< Arg0 file size before close
  SetView,      ///< Arg0 disp, Arg1 etype size, Arg2 filetype size << 32 | runs (capped)
  Seek,         ///< Arg0 offset (etypes), Arg1 whence, Arg2 1 for the shared pointer
  SetSize,      ///< Arg0 size
  Preallocate,  ///< Arg0 size
  Sync,         ///<
  Barrier,      ///< Arg0 communicator size (process-wide: File = kNoFile)
  SetAtomicity, ///< Arg0 flag
  Delete,       ///< File = kNoFile, path in a preceding 'F' record
  Gather,       ///< partition layer: Arg0 bytes copied to the shared file
};

#pragma pack(push, 1)
struct HeaderFixed {
  char Magic[8];          ///< kLogMagic
  uint32_t Bytes;         ///< the whole header record, strings included
  uint32_t Version;       ///< kLogVersion
  uint32_t Rank, NRanks;  ///< in MPI_COMM_WORLD
  uint32_t Pid, Flags;    ///< Flags bit 0: written by the partition layer
  uint64_t RunId;         ///< the same on every rank of one run
  uint64_t T0RealtimeNs;  ///< CLOCK_REALTIME at T0
  uint16_t HostLen, ProgLen, LocalLen, Reserved;
};

struct FileRecord {
  uint8_t Kind;      ///< 'F'
  uint8_t Flags;     ///< bit 0: POSIX file
  uint16_t PathLen;  ///< bytes of the path that follows
  uint32_t File;     ///< id in this section
  uint64_t Instance; ///< the same on every rank that took part in the open
  uint32_t CommSize, CommRank, Amode, Reserved;
};

struct AccessRecord {
  uint8_t Kind;     ///< 'A'
  uint8_t Op;       ///< IoOp
  uint16_t Flags;   ///< AccessFlag
  uint32_t File;
  uint64_t Offset, Length; ///< file bytes
  uint64_t Start, End;     ///< ns since T0
  uint32_t Call;    ///< per-section number of the MPI/POSIX call
  uint16_t Target;  ///< Target
  uint16_t Reserved;
  uint32_t Peer;    ///< rank (MPI_COMM_WORLD) for Remote/Push
  uint32_t Reserved2;
  uint64_t LocalOff; ///< offset in the node-local file (Local, Remote, Push), else ~0
};

struct EventRecord {
  uint8_t Kind;  ///< 'E'
  uint8_t Event; ///< EventKind
  uint16_t Flags; ///< AfCollective when collective
  uint32_t File;
  uint64_t Arg0, Arg1, Arg2;
  uint64_t Start, End;
  uint32_t Call, Reserved;
};
#pragma pack(pop)

static_assert(sizeof(HeaderFixed) == 56, "log format: header");
static_assert(sizeof(FileRecord) == 32, "log format: file record");
static_assert(sizeof(AccessRecord) == 64, "log format: access record");
static_assert(sizeof(EventRecord) == 56, "log format: event record");

const char *eventName(EventKind E);
const char *targetName(Target T);

} // namespace iopoly::prof

#endif
