//===- Service.h - Serving other ranks' requests for local data --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Node-local files can only be read and written by their own node, so a
// rank that needs bytes whose home is another rank's local file asks that
// rank: a helper thread per rank answers requests on a private duplicate
// of MPI_COMM_WORLD (MPI_THREAD_MULTIPLE): read these bytes, write these
// bytes (its home data), take this broadcast update, drop this copy. Every
// request is answered before the caller goes on, so a write is in its
// home (and in every reader's copy) when the call returns, as with a
// shared file. The helper never waits for another helper, so requests
// cannot deadlock; it polls with a sleep that backs off to 1 ms when idle.
// Matching plans need no requests except broadcast updates.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_APPLY_SERVICE_H
#define IOPOLY_PROFILE_APPLY_SERVICE_H

#include "mpi/Mpi.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace iopoly::prof {

enum class MsgType : uint32_t { Read = 1, Write, Push, Revoke, Stop, PushBatch };

/// One part of a PushBatch payload; the data of every part follows the table.
struct PushPart {
  uint32_t Chunk = 0, Pad = 0;
  uint64_t Off = 0, Len = 0;
};

struct MsgHeader {
  uint32_t Type = 0, ReplyTag = 0;
  uint64_t Instance = 0;
  uint32_t Chunk = 0, Status = 0; ///< Status: 0 ok, else an error (reply)
  uint64_t Off = 0, Len = 0;
};

class Service {
public:
  /// Serves a request; fills \p Reply (data for reads) and returns a status.
  using Handler = std::function<uint32_t(const MsgHeader &, const char *Data, std::vector<char> &Reply)>;

  /// Collective over MPI_COMM_WORLD.
  bool start(Handler H);
  /// Collective: waits for every rank, then stops the helper.
  void stop();
  bool running() const { return Running; }

  /// Blocking request to world rank \p Peer; \p Out receives Len bytes for
  /// reads. Returns the peer's status (0 ok) or an MPI error.
  uint32_t call(int Peer, MsgType T, uint64_t Instance, uint32_t Chunk, uint64_t Off, uint64_t Len,
                const char *Data, char *Out);

  /// One request with a prepared payload (PushBatch); answered before return.
  uint32_t send(int Peer, MsgType T, uint64_t Instance, uint32_t Count, const std::vector<char> &Payload);
  /// Several such requests to different ranks at once; the first failure.
  struct Batch {
    int Peer;
    MsgType Type;
    uint64_t Instance;
    uint32_t Count;
    std::vector<char> Payload;
  };
  uint32_t sendAll(std::vector<Batch> &Requests);
  static constexpr uint64_t MaxMessage = 16u << 20; ///< larger requests are split

private:
  void loop();
  MPI_Comm Comm = MPI_COMM_NULL;
  int Me = 0;
  Handler H;
  std::thread Helper;
  bool Running = false;
  std::atomic<uint32_t> NextTag{0};
};

} // namespace iopoly::prof

#endif
