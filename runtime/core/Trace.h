//===- Trace.h - Binary stripe access trace (IOPOLY_TRACE) ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Format (little-endian), read by iopoly-trace and scripts/iopoly_trace.py:
//   file header : "IOPTRACE" (8 bytes), u32 version = 1, u32 0
//   array record: u8 'A', u8 0, u16 name length, u32 array id, name bytes
//   event record: u8 'E', u8 kind, u16 disk, u32 array id, u64 stripe,
//                 u64 time in ns since the runtime started         (24 bytes)
// kind bits: 0x1 hit (else miss), 0x2 write (else read), and in bits 4..7
// the event type: 0 attach, 1 prefetch issued, 2 write-back, 3 eviction.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_TRACE_H
#define IOPOLY_RUNTIME_TRACE_H

#include "core/Error.h"
#include "core/OutputFile.h"

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace iopoly {

enum TraceKind : uint8_t {
  TraceHit = 0x1,
  TraceWrite = 0x2,
  TraceAttach = 0x00,
  TracePrefetch = 0x10,
  TraceWriteback = 0x20,
  TraceEvict = 0x30,
  TraceSync = 0x40, ///< a sync point of a shared array (stripe 0)
};

struct TraceEvent {
  uint8_t Kind;
  uint16_t Disk;
  uint32_t Array;
  uint64_t Stripe;
  uint64_t TimeNs;
};

/// Appends records to a file; not thread-safe (called under the buffer lock).
/// The file follows the OutputFile rules: a regular file is written under a
/// temporary name and renamed over the path at close.
/// A transfer the I/O layer made for a stripe (record 'R'): what the
/// storage below the buffer saw, in the order it was asked. Under a
/// storage-cache hierarchy (runtime/mpi/) it also says which level served
/// it, the arrival numbers the I/O node and the storage node gave it, and
/// its modeled latency; iopoly-cachesim replays these records.
struct TraceRequest {
  uint8_t Write = 0;   ///< 0 read, 1 write
  uint8_t Level = 0;   ///< 0 direct (no hierarchy), 2 I/O-node cache, 3 storage-node cache, 4 disk
  uint16_t Disk = 0;
  uint32_t Array = 0;
  uint64_t Stripe = 0;
  uint32_t Offset = 0; ///< first byte within the stripe
  uint32_t Bytes = 0;
  uint32_t L2Seq = 0;  ///< arrival number at the I/O node (0: none)
  uint32_t L3Seq = 0;  ///< at the storage node (0: did not reach it)
  uint64_t TimeNs = 0;
  uint64_t LatencyNs = 0; ///< modeled, 0 without a hierarchy
  uint64_t FileKey = 0;   ///< fileKey() of the disk file's path
  uint64_t After = 0;  ///< number of 'E' records before it (reading only)
};

class TraceWriter {
public:
  ~TraceWriter() { close(); }
  Status open(const std::string &Path);
  bool active() const { return File != nullptr; }
  void defineArray(uint32_t Id, const std::string &Name);
  void event(const TraceEvent &E);
  void request(const TraceRequest &R);
  void close();

private:
  void put(const void *P, size_t N);
  void drain();
  std::unique_ptr<OutputFile> File;
  std::vector<unsigned char> Buf;
  std::string Path;
  std::mutex Mu; ///< requests come from I/O threads, events under the buffer lock
};

/// Reads a whole trace into memory; for the reader tool and the tests.
struct TraceContents {
  std::vector<std::string> ArrayNames; ///< indexed by array id ("" if unknown)
  std::vector<TraceEvent> Events;
  std::vector<TraceRequest> Requests; ///< in file order; After places them among Events
};
Status readTrace(const std::string &Path, TraceContents &Out);

/// What scanTrace hands over, record by record in file order; an error
/// returned stops the scan and is its result.
struct TraceVisitor {
  virtual ~TraceVisitor() = default;
  virtual Status array(uint32_t, const std::string &) { return {}; }
  virtual Status event(const TraceEvent &) { return {}; }
  virtual Status request(const TraceRequest &) { return {}; }
};
/// Reads a trace a window at a time (memory does not grow with it).
Status scanTrace(const std::string &Path, TraceVisitor &V);

} // namespace iopoly

#endif
