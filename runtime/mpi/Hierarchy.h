//===- Hierarchy.h - Messages between clients and cache servers --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The real storage-cache hierarchy: at MPI_Init, libiopoly_mpi spawns one
// iopoly-cacheserver process per I/O node and per storage node of the
// topology (MPI_Comm_spawn) and merges the inter-communicator, clients
// first: in the merged communicator client ranks keep their MPI_COMM_WORLD
// numbers, I/O node k is P + k and storage node s is P + X + s (P compute
// ranks, X I/O nodes). A client sends each stripe transfer to its I/O
// node and waits for the reply; an I/O node serves reads from its cache or
// asks its storage node; a storage node serves from its cache or reads the
// disk, through the storage node that holds it; writes go through to the
// disk. Every server handles one request at a time, in arrival order, and
// numbers them: the numbers come back in the reply and go into the
// client's trace, so that iopoly-cachesim can replay the same order.
// Modeled time: a request carries its issue time, every hop adds
// NetModel::hop of the bytes it carries, a disk adds its queue (DiskModel),
// and the reply carries the completion time.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_HIERARCHY_H
#define IOPOLY_RUNTIME_MPI_HIERARCHY_H

#include "mpi/Mpi.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <time.h>
#include <vector>

namespace iopoly {
namespace hier {

enum Tag : int {
  TagRequest = 7101,  ///< a stripe transfer, client -> I/O node -> storage node
  TagReply,           ///< its answer
  TagDisk,            ///< a disk transfer for the storage node that holds the disk
  TagDiskReply,
  TagEpoch,           ///< end of an epoch: report the writes of these files
  TagEpochReply,
  TagDrop,            ///< drop these blocks, forget the epoch's writes of these files
  TagDropAck,
  TagBye,             ///< the clients are done (MPI_Finalize)
};

struct Request {
  uint32_t Write = 0;
  uint32_t Bytes = 0;
  uint32_t InStripe = 0;  ///< first byte within the stripe
  uint32_t PathLen = 0;
  uint32_t Disk = 0;
  uint32_t StripeSize = 0;
  uint64_t Stripe = 0;
  uint64_t FileOff = 0;   ///< of the first byte, in the disk file
  uint64_t File = 0;      ///< fileKey(path)
  double Time = 0;        ///< modeled time it arrives where it is sent
};

struct Reply {
  int32_t Err = 0;        ///< 0 or errno
  uint32_t Level = 0;     ///< 2 I/O node, 3 storage node, 4 disk
  uint32_t L2Seq = 0, L3Seq = 0;
  double Done = 0;        ///< modeled time the answer is back where it was sent from
};

/// Header, then the path, then the data (writes; replies to reads).
inline std::vector<char> pack(const void *Header, size_t HeaderBytes, const std::string &Path, const char *Data,
                              size_t Bytes) {
  std::vector<char> M(HeaderBytes + Path.size() + Bytes);
  std::memcpy(M.data(), Header, HeaderBytes);
  if (!Path.empty())
    std::memcpy(M.data() + HeaderBytes, Path.data(), Path.size());
  if (Bytes)
    std::memcpy(M.data() + HeaderBytes + Path.size(), Data, Bytes);
  return M;
}

/// Sleeps a little longer each time nothing arrived (up to 200 us): on an
/// oversubscribed node the ranks and servers that wait then leave the cores
/// to the one that works, instead of spinning in MPI's progress loop.
struct Backoff {
  unsigned Us = 0;
  void idle() {
    if (Us < 200)
      Us = Us ? 2 * Us : 1;
    struct timespec Ts = {0, static_cast<long>(Us) * 1000};
    nanosleep(&Ts, nullptr);
  }
};

/// Waits until a message from \p Source with \p Tag (either may be
/// MPI_ANY_*) can be received; returns its status.
inline MPI_Status probe(MPI_Comm C, int Source, int Tag) {
  MPI_Status St;
  Backoff B;
  for (int Flag = 0;;) {
    PMPI_Iprobe(Source, Tag, C, &Flag, &St);
    if (Flag)
      return St;
    B.idle();
  }
}

/// Receives one message of any size from \p Source with \p Tag (either may
/// be MPI_ANY_*).
inline MPI_Status receive(MPI_Comm C, int Source, int Tag, std::vector<char> &Buf) {
  MPI_Status St = probe(C, Source, Tag);
  int N = 0;
  PMPI_Get_count(&St, MPI_BYTE, &N);
  Buf.resize(static_cast<size_t>(N));
  PMPI_Recv(Buf.data(), N, MPI_BYTE, St.MPI_SOURCE, St.MPI_TAG, C, &St);
  return St;
}

inline void send(MPI_Comm C, int Dest, int Tag, const std::vector<char> &M) {
  PMPI_Send(M.data(), static_cast<int>(M.size()), MPI_BYTE, Dest, Tag, C);
}

} // namespace hier
} // namespace iopoly

#endif
