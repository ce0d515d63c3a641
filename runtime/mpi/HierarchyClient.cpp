//===- HierarchyClient.cpp - A compute rank of the cache hierarchy ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Starts the servers of IOPOLY_TOPOLOGY (inside MPI_Init) and is the
// router (StripeRouter.h) through which the rank's stripe buffer, its L1
// cache, reads and writes: every transfer is a request to the rank's I/O
// node (Hierarchy.h), answered by the level that had the data. Counts per
// level and the modeled latency go into the rank's statistics.
//
//===----------------------------------------------------------------------===//
#include "mpi/HierarchyClient.h"

#include "mpi/CacheModel.h"
#include "mpi/Hierarchy.h"

#include "core/Array.h"
#include "core/Config.h"
#include "core/Json.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <unordered_set>

namespace iopoly {

using namespace hier;

namespace {

/// iopoly-cacheserver: IOPOLY_CACHESERVER, else bin/ beside this library's lib/.
std::string serverPath(const Config &C) {
  if (!C.CacheServer.empty())
    return C.CacheServer;
  Dl_info Info;
  if (dladdr(reinterpret_cast<void *>(&startHierarchy), &Info) && Info.dli_fname) {
    std::string Self = Info.dli_fname;
    size_t Slash = Self.rfind('/');
    std::string Dir = Slash == std::string::npos ? "." : Self.substr(0, Slash);
    return Dir + "/../bin/iopoly-cacheserver";
  }
  return "iopoly-cacheserver";
}

class Client final : public StripeRouter {
public:
  Client(MPI_Comm Inter, MPI_Comm M, const Topology &T, int Rank)
      : Inter(Inter), M(M), T(T), P(T.numRanks()), X(static_cast<int>(T.IoNodes.size())) {
    int C = T.clientOfRank(Rank);
    IoRank = P + T.Clients[static_cast<size_t>(C)].IoNode;
    Net.Latency = T.NetLatency;
    Net.Bandwidth = T.NetBandwidth;
    int Level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&Level);
    Threads = Level == MPI_THREAD_MULTIPLE;
  }

  Status transfer(const iopoly_array &A, size_t Stripe, uint64_t FileOff, uint32_t InStripe, char *Data,
                  size_t Bytes, bool Write, RouteInfo &Info) override {
    std::lock_guard<std::mutex> L(Mu); // one request in flight per rank
    if (Closed)
      return Status::error("the storage-cache hierarchy has shut down (MPI_Finalize)");
    size_t Disk = A.Geo.diskOf(Stripe);
    const std::string &Path = A.Paths[Disk];
    Request R;
    R.Write = Write;
    R.Bytes = static_cast<uint32_t>(Bytes);
    R.InStripe = InStripe;
    R.PathLen = static_cast<uint32_t>(Path.size());
    R.Disk = static_cast<uint32_t>(Disk);
    R.StripeSize = static_cast<uint32_t>(A.Geo.StripeSize);
    R.Stripe = Stripe;
    R.FileOff = FileOff;
    R.File = fileKey(Path);
    R.Time = Clock;
    send(M, IoRank, TagRequest, pack(&R, sizeof R, Path, Write ? Data : nullptr, Write ? Bytes : 0));
    std::vector<char> Buf;
    receive(M, IoRank, TagReply, Buf);
    Reply Rp;
    std::memcpy(&Rp, Buf.data(), sizeof Rp);
    if (Rp.Err)
      return Status::error(format("%s of %zu bytes at offset %llu of '%s' through the cache hierarchy: %s",
                                  Write ? "write" : "read", Bytes, static_cast<unsigned long long>(FileOff),
                                  Path.c_str(), std::strerror(Rp.Err)));
    if (!Write)
      std::memcpy(Data, Buf.data() + sizeof Rp, Bytes);
    Info.Level = static_cast<uint8_t>(Rp.Level);
    Info.L2Seq = Rp.L2Seq;
    Info.L3Seq = Rp.L3Seq;
    Info.Latency = Rp.Done - Clock;
    Clock = Rp.Done;
    count(Write, Bytes, Rp.Level);
    return {};
  }

  bool allowsThreads() const override { return Threads; }

  Status epoch(const iopoly_array &A, Group &G) override {
    G.barrier(); // every rank's write-backs are answered
    if (G.rank() == 0) {
      std::unordered_set<uint64_t> Set;
      std::vector<uint64_t> Files;
      for (const std::string &P : A.Paths)
        if (Set.insert(fileKey(P)).second)
          Files.push_back(fileKey(P));
      endEpoch(0, X, Files);                                           // I/O nodes
      endEpoch(X, static_cast<int>(T.StorageNodes.size()), Files); // storage nodes
    }
    G.barrier(); // nobody reads before the servers dropped their old copies
    return {};
  }

  std::string statsJSON() const override {
    std::lock_guard<std::mutex> L(Mu);
    JsonWriter W;
    W.beginObject();
    auto Level = [&](const char *Name, const LevelCounters &C) {
      W.key(Name).beginObject();
      W.key("reads").value(static_cast<unsigned long long>(C.Reads));
      W.key("hits").value(static_cast<unsigned long long>(C.Hits));
      W.key("misses").value(static_cast<unsigned long long>(C.Misses));
      W.key("bytes_read").value(static_cast<unsigned long long>(C.BytesRead));
      W.key("writes").value(static_cast<unsigned long long>(C.Writes));
      W.key("bytes_written").value(static_cast<unsigned long long>(C.BytesWritten));
      W.endObject();
    };
    Level("L2", L2);
    Level("L3", L3);
    Level("disk", DiskC);
    W.key("modeled_io_seconds").value(Clock);
    W.key("topology").value(T.Source);
    W.key("io_node").value(T.IoNodes[static_cast<size_t>(IoRank - P)].Name);
    W.endObject();
    return W.str();
  }

  /// MPI_Finalize: rank 0 dismisses the servers; everyone disconnects.
  void shutDown() {
    std::lock_guard<std::mutex> L(Mu);
    if (Closed)
      return;
    Closed = true;
    PMPI_Barrier(MPI_COMM_WORLD);
    int Rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    if (Rank == 0)
      for (int S = 0; S < X + static_cast<int>(T.StorageNodes.size()); ++S)
        send(M, P + S, TagBye, {});
    PMPI_Comm_free(&M);
    PMPI_Comm_disconnect(&Inter);
  }

private:
  void count(bool Write, size_t Bytes, unsigned Level) {
    // The request passed through every level down to the one that served it.
    if (Write) {
      for (LevelCounters *C : {&L2, &L3, &DiskC}) {
        C->Writes++;
        C->BytesWritten += Bytes;
      }
      return;
    }
    L2.Reads++;
    L2.BytesRead += Bytes;
    (Level == 2 ? L2.Hits : L2.Misses)++;
    if (Level < 3)
      return;
    L3.Reads++;
    L3.BytesRead += Bytes;
    (Level == 3 ? L3.Hits : L3.Misses)++;
    if (Level == 4) {
      DiskC.Reads++;
      DiskC.BytesRead += Bytes;
    }
  }

  /// One level (servers First.. First+N-1 after the clients): gathers
  /// their writes of \p Files this epoch, tells each what to drop.
  void endEpoch(int First, int N, const std::vector<uint64_t> &Files) {
    std::vector<uint64_t> Ask{Files.size()};
    Ask.insert(Ask.end(), Files.begin(), Files.end());
    std::vector<char> AskMsg(reinterpret_cast<char *>(Ask.data()), reinterpret_cast<char *>(Ask.data() + Ask.size()));
    std::vector<std::vector<std::pair<BlockKey, uint32_t>>> Written(static_cast<size_t>(N));
    for (int S = 0; S < N; ++S) {
      send(M, P + First + S, TagEpoch, AskMsg);
      std::vector<char> Buf;
      receive(M, P + First + S, TagEpochReply, Buf);
      const uint64_t *W = reinterpret_cast<const uint64_t *>(Buf.data());
      for (size_t I = 0; I + 2 < Buf.size() / 8; I += 3)
        Written[static_cast<size_t>(S)].push_back({{W[I], W[I + 1]}, static_cast<uint32_t>(W[I + 2])});
    }
    std::vector<std::vector<BlockKey>> Drops = levelDrops(Written);
    for (int S = 0; S < N; ++S) {
      const auto &D = Drops[static_cast<size_t>(S)];
      std::vector<uint64_t> Msg{D.size()};
      for (const BlockKey &K : D) {
        Msg.push_back(K.File);
        Msg.push_back(K.Stripe);
      }
      Msg.push_back(Files.size());
      Msg.insert(Msg.end(), Files.begin(), Files.end());
      send(M, P + First + S, TagDrop,
           std::vector<char>(reinterpret_cast<char *>(Msg.data()), reinterpret_cast<char *>(Msg.data() + Msg.size())));
      std::vector<char> Ack;
      receive(M, P + First + S, TagDropAck, Ack);
    }
  }

  MPI_Comm Inter, M;
  Topology T;
  int P, X, IoRank = 0;
  NetModel Net;
  bool Threads = false;
  mutable std::mutex Mu;
  double Clock = 0;
  LevelCounters L2, L3, DiskC;
  bool Closed = false;
};

} // namespace

Status startHierarchy(const std::string &TopoPath, std::unique_ptr<StripeRouter> &Out) {
  Topology T;
  std::string Err = loadTopology(TopoPath, T);
  if (!Err.empty())
    return Status::error("IOPOLY_TOPOLOGY=" + TopoPath + ": " + Err);
  int Rank = 0, Size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size != T.numRanks())
    return Status::error(format("IOPOLY_TOPOLOGY=%s: the topology's clients run %d ranks, but MPI_COMM_WORLD has %d "
                                "(start mpirun with -np %d; the cache servers are started separately)",
                                TopoPath.c_str(), T.numRanks(), Size, T.numRanks()));
  const Config *C = nullptr;
  if (Status S = globalConfig(C))
    return S;
  if (T.Block && T.Block != C->StripeSize)
    return Status::error(format("IOPOLY_TOPOLOGY=%s: the topology's block is %llu bytes but IOPOLY_STRIPE is %zu",
                                TopoPath.c_str(), static_cast<unsigned long long>(T.Block), C->StripeSize));
  for (const TopoClient &Cl : T.Clients)
    if (Rank == 0 && Cl.CacheBytes && Cl.CacheBytes != C->BufferBytes) {
      warning(format("IOPOLY_TOPOLOGY=%s: client '%s' has a %llu-byte cache, but the ranks' buffers are "
                     "IOPOLY_BUFFER=%zu bytes (the buffer is the client cache)",
                     TopoPath.c_str(), Cl.Name.c_str(), static_cast<unsigned long long>(Cl.CacheBytes),
                     C->BufferBytes));
      break;
    }
  if (T.Disks.size() != C->numDisks())
    return Status::error(format("IOPOLY_TOPOLOGY=%s: the topology has %zu disks but IOPOLY_DISKS gives %zu",
                                TopoPath.c_str(), T.Disks.size(), C->numDisks()));
  std::string Server = serverPath(*C);
  std::string StripeArg = std::to_string(C->StripeSize);
  std::vector<char *> Args{const_cast<char *>(TopoPath.c_str()), const_cast<char *>(StripeArg.c_str()), nullptr};
  int N = static_cast<int>(T.IoNodes.size() + T.StorageNodes.size());
  std::vector<int> Codes(static_cast<size_t>(N), MPI_SUCCESS);
  MPI_Comm Inter, Merged;
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int E = PMPI_Comm_spawn(Server.c_str(), Args.data(), N, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &Inter, Codes.data());
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (E != MPI_SUCCESS)
    return Status::error(format("IOPOLY_TOPOLOGY=%s: cannot start the %d cache servers '%s' with MPI_Comm_spawn (with "
                                "Open MPI, the spawned servers need a BTL that reaches them, e.g. "
                                "OMPI_MCA_btl=self,vader,tcp; IOPOLY_CACHESERVER names the program)",
                                TopoPath.c_str(), N, Server.c_str()));
  PMPI_Intercomm_merge(Inter, 0, &Merged);
  Out = std::make_unique<Client>(Inter, Merged, T, Rank);
  if (Rank == 0)
    verbose(format("storage-cache hierarchy of %s running: %s", TopoPath.c_str(), T.summary().c_str()));
  return {};
}

void stopHierarchy(StripeRouter *R) {
  if (R)
    static_cast<Client *>(R)->shutDown();
}

} // namespace iopoly
