//===- CacheServer.cpp - iopoly-cacheserver: an I/O or storage node --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Started by libiopoly_mpi with MPI_Comm_spawn when IOPOLY_TOPOLOGY names a
// hierarchy (Hierarchy.h has the protocol). One process per I/O node and
// per storage node; each keeps an LRU cache of stripes (CacheModel.h) with
// the data in memory. Storage nodes read and write the disk files (pread /
// pwrite on the paths the clients send) for the disks they hold and keep
// the modeled queue of each (DiskModel); a storage node missing a stripe of
// a disk held by another storage node asks that node for the disk transfer.
//
//===----------------------------------------------------------------------===//
#include "mpi/CacheModel.h"
#include "mpi/Hierarchy.h"
#include "mpi/Topology.h"

#include "core/Config.h"
#include "io/DiskModel.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <map>
#include <memory>
#include <unistd.h>
#include <unordered_set>

using namespace iopoly;
using namespace iopoly::hier;

namespace {

struct Message {
  int Source, Tag;
  std::vector<char> Buf;
};

class Server {
public:
  Server(MPI_Comm M, const Topology &T, size_t Stripe, int P, int Index)
      : M(M), T(T), Stripe(Stripe), P(P), X(static_cast<int>(T.IoNodes.size())), IsIo(Index < X),
        Node(IsIo ? Index : Index - X),
        Cache(cacheBlocks(IsIo ? T.IoNodes[static_cast<size_t>(Node)].CacheBytes
                               : T.StorageNodes[static_cast<size_t>(Node)].CacheBytes,
                          Stripe)) {
    Net.Latency = T.NetLatency;
    Net.Bandwidth = T.NetBandwidth;
    if (!IsIo)
      for (int D : T.StorageNodes[static_cast<size_t>(Node)].Disks) {
        DiskModelParams Params;
        if (Status S = parseDiskModel(T.Disks[static_cast<size_t>(D)].Model, Params))
          fail("disk " + std::to_string(D) + ": " + S.message());
        Disks[D] = std::make_unique<DiskModel>(Params, 1);
      }
  }
  ~Server() {
    for (auto &KV : Fds)
      ::close(KV.second);
  }

  void run() {
    while (true) {
      Message Mg = next();
      switch (Mg.Tag) {
      case TagRequest: request(Mg); break;
      case TagDisk: disk(Mg); break;
      case TagEpoch: epoch(Mg); break;
      case TagDrop: drop(Mg); break;
      case TagBye: return;
      default: fail("unexpected message tag " + std::to_string(Mg.Tag));
      }
    }
  }

private:
  static uint64_t cacheBlocks(uint64_t Bytes, size_t Stripe) { return Bytes / Stripe ? Bytes / Stripe : 1; }
  [[noreturn]] void fail(const std::string &Why) {
    std::fprintf(stderr, "iopoly-cacheserver (%s %d): fatal: %s\n", IsIo ? "I/O node" : "storage node", Node,
                 Why.c_str());
    PMPI_Abort(M, 1);
    std::exit(1);
  }
  int storageRank(int S) const { return P + X + S; }

  Message next() {
    if (!Deferred.empty()) {
      Message Mg = std::move(Deferred.front());
      Deferred.pop_front();
      return Mg;
    }
    Message Mg;
    MPI_Status St = receive(M, MPI_ANY_SOURCE, MPI_ANY_TAG, Mg.Buf);
    Mg.Source = St.MPI_SOURCE;
    Mg.Tag = St.MPI_TAG;
    return Mg;
  }

  /// Takes one message that has arrived: disk transfers asked by other
  /// storage nodes are served at once (serving one never waits for an
  /// answer, so two storage nodes asking each other cannot deadlock);
  /// anything else waits its turn in Deferred.
  void take(const MPI_Status &Probed) {
    Message Mg;
    MPI_Status St = receive(M, Probed.MPI_SOURCE, Probed.MPI_TAG, Mg.Buf);
    Mg.Source = St.MPI_SOURCE;
    Mg.Tag = St.MPI_TAG;
    if (Mg.Tag == TagDisk)
      disk(Mg);
    else
      Deferred.push_back(std::move(Mg));
  }

  /// Waits for \p Tag from \p Source, taking whatever else arrives.
  std::vector<char> await(int Source, int Tag) {
    while (true) {
      // Serving a disk transfer may have taken the answer already.
      for (auto It = Deferred.begin(); It != Deferred.end(); ++It)
        if (It->Source == Source && It->Tag == Tag) {
          std::vector<char> Buf = std::move(It->Buf);
          Deferred.erase(It);
          return Buf;
        }
      MPI_Status St = probe(M, MPI_ANY_SOURCE, MPI_ANY_TAG);
      if (St.MPI_SOURCE == Source && St.MPI_TAG == Tag) {
        std::vector<char> Buf;
        receive(M, Source, Tag, Buf);
        return Buf;
      }
      take(St);
    }
  }

  /// Sends \p Mg to another server or a client. A message larger than MPI's
  /// eager limit waits for its receiver: two storage nodes sending each
  /// other disk transfers at once would both wait forever, so the send is
  /// nonblocking and whatever arrives meanwhile is taken.
  void post(int Dest, int Tag, const std::vector<char> &Mg) {
    MPI_Request Rq;
    PMPI_Isend(Mg.data(), static_cast<int>(Mg.size()), MPI_BYTE, Dest, Tag, M, &Rq);
    Backoff B;
    for (int Done = 0;;) {
      PMPI_Test(&Rq, &Done, MPI_STATUS_IGNORE);
      if (Done)
        return;
      int Flag = 0;
      MPI_Status St;
      PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, M, &Flag, &St);
      if (Flag)
        take(St);
      else
        B.idle();
    }
  }

  int fd(const std::string &Path) {
    auto It = Fds.find(Path);
    if (It != Fds.end())
      return It->second;
    int F = ::open(Path.c_str(), O_RDWR | O_CLOEXEC);
    if (F < 0)
      F = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
    if (F >= 0)
      Fds[Path] = F;
    return F;
  }

  /// The real transfer on a disk held here; 0 or errno.
  int diskIO(const Request &R, const std::string &Path, char *Data) {
    int F = fd(Path);
    if (F < 0)
      return errno ? errno : EIO;
    size_t Done = 0;
    while (Done < R.Bytes) {
      ssize_t N = R.Write ? ::pwrite(F, Data + Done, R.Bytes - Done, static_cast<off_t>(R.FileOff + Done))
                          : ::pread(F, Data + Done, R.Bytes - Done, static_cast<off_t>(R.FileOff + Done));
      if (N < 0 && errno == EINTR)
        continue;
      if (N < 0)
        return errno;
      if (N == 0) { // beyond the end of the file: zeros (never the case for a valid array)
        std::memset(Data + Done, 0, R.Bytes - Done);
        break;
      }
      Done += static_cast<size_t>(N);
    }
    return 0;
  }

  /// Modeled completion of a transfer reaching disk \p Disk at \p Arrive.
  double diskTime(const Request &R, double Arrive) {
    auto It = Disks.find(static_cast<int>(R.Disk));
    if (It == Disks.end() || !It->second->enabled())
      return Arrive;
    return It->second->submit(0, R.File, R.FileOff, R.Bytes, Arrive).Done;
  }

  /// A disk transfer for the disk of \p R, held here or by another storage
  /// node, issued at \p Arrive here; fills \p Data for reads, returns the
  /// modeled time the answer is back here.
  int diskTransfer(const Request &R, const std::string &Path, char *Data, double Arrive, double &Back) {
    int Owner = T.Disks.size() > R.Disk ? T.Disks[R.Disk].StorageNode : Node;
    if (Owner == Node) {
      Back = diskTime(R, Arrive);
      return diskIO(R, Path, Data);
    }
    Request D = R;
    D.Time = Arrive;
    post(storageRank(Owner), TagDisk, pack(&D, sizeof D, Path, R.Write ? Data : nullptr, R.Write ? R.Bytes : 0));
    std::vector<char> Buf = await(storageRank(Owner), TagDiskReply);
    Reply Rp;
    std::memcpy(&Rp, Buf.data(), sizeof Rp);
    if (!R.Write && Rp.Err == 0)
      std::memcpy(Data, Buf.data() + sizeof Rp, R.Bytes);
    Back = Rp.Done;
    return Rp.Err;
  }

  void disk(const Message &Mg) {
    Request R;
    std::memcpy(&R, Mg.Buf.data(), sizeof R);
    std::string Path(Mg.Buf.data() + sizeof R, R.PathLen);
    std::vector<char> Data(R.Bytes);
    if (R.Write)
      std::memcpy(Data.data(), Mg.Buf.data() + sizeof R + R.PathLen, R.Bytes);
    double Arrive = R.Time + Net.hop(R.Write ? R.Bytes : 0);
    Reply Rp;
    Rp.Level = 4;
    Rp.Err = diskIO(R, Path, Data.data());
    Rp.Done = diskTime(R, Arrive) + Net.hop(R.Write ? 0 : R.Bytes);
    post(Mg.Source, TagDiskReply, pack(&Rp, sizeof Rp, "", Data.data(), R.Write || Rp.Err ? 0 : R.Bytes));
  }

  void request(const Message &Mg) {
    Request R;
    std::memcpy(&R, Mg.Buf.data(), sizeof R);
    std::string Path(Mg.Buf.data() + sizeof R, R.PathLen);
    const char *In = Mg.Buf.data() + sizeof R + R.PathLen;
    uint32_t MySeq = ++Seq;
    BlockKey K{R.File, R.Stripe};
    bool Whole = R.InStripe == 0 && R.Bytes == R.StripeSize && R.StripeSize == Stripe;
    double Arrive = R.Time + Net.hop(R.Write ? R.Bytes : 0);
    Reply Rp;
    (IsIo ? Rp.L2Seq : Rp.L3Seq) = MySeq;
    std::vector<char> Out;
    if (R.Write) {
      if (Cache.write(K, R.Bytes)) {
        std::vector<char> &Copy = Data[K];
        std::memcpy(Copy.data() + R.InStripe, In, R.Bytes);
      }
      double Back = 0;
      Rp.Err = below(R, Path, const_cast<char *>(In), Arrive, Back, Rp);
      Rp.Done = Back + Net.hop(0);
    } else {
      bool Evicted = false;
      BlockKey Victim;
      bool Hit = Whole && Cache.read(K, R.Bytes, &Evicted, &Victim);
      if (Evicted)
        Data.erase(Victim);
      Out.resize(R.Bytes);
      if (Hit) {
        Rp.Level = IsIo ? 2 : 3;
        std::memcpy(Out.data(), Data[K].data(), R.Bytes);
        Rp.Done = Arrive + Net.hop(R.Bytes);
      } else {
        double Back = 0;
        Rp.Err = below(R, Path, Out.data(), Arrive, Back, Rp);
        Rp.Done = Back + Net.hop(R.Bytes);
        if (Whole && Rp.Err == 0)
          Data[K] = Out;
        else if (Whole)
          Cache.endEpoch({K}, {}); // a failed read leaves nothing cached
      }
    }
    post(Mg.Source, TagReply, pack(&Rp, sizeof Rp, "", Out.data(), R.Write || Rp.Err ? 0 : R.Bytes));
  }

  /// The level below: the storage node for an I/O node, the disk for a
  /// storage node. \p Back: modeled time the answer is back here.
  int below(const Request &R, const std::string &Path, char *Data, double Arrive, double &Back, Reply &Rp) {
    if (!IsIo) {
      Rp.Level = 4;
      return diskTransfer(R, Path, Data, Arrive, Back);
    }
    Request Fw = R;
    Fw.Time = Arrive;
    int To = storageRank(T.IoNodes[static_cast<size_t>(Node)].StorageNode);
    post(To, TagRequest, pack(&Fw, sizeof Fw, Path, R.Write ? Data : nullptr, R.Write ? R.Bytes : 0));
    std::vector<char> Buf = await(To, TagReply);
    Reply From;
    std::memcpy(&From, Buf.data(), sizeof From);
    if (!R.Write && From.Err == 0)
      std::memcpy(Data, Buf.data() + sizeof From, R.Bytes);
    Rp.Level = R.Write ? 4 : From.Level;
    Rp.L3Seq = From.L3Seq;
    Back = From.Done;
    return From.Err;
  }

  static std::unordered_set<uint64_t> files(const char *P, uint64_t N) {
    std::unordered_set<uint64_t> F;
    for (uint64_t I = 0; I < N; ++I) {
      uint64_t K;
      std::memcpy(&K, P + 8 * I, 8);
      F.insert(K);
    }
    return F;
  }

  /// Reports the epoch's writes of the files named: (file, stripe, count).
  void epoch(const Message &Mg) {
    uint64_t N;
    std::memcpy(&N, Mg.Buf.data(), 8);
    auto W = Cache.written(files(Mg.Buf.data() + 8, N));
    std::vector<uint64_t> Out;
    for (const auto &KV : W) {
      Out.push_back(KV.first.File);
      Out.push_back(KV.first.Stripe);
      Out.push_back(KV.second);
    }
    post(Mg.Source, TagEpochReply,
         std::vector<char>(reinterpret_cast<char *>(Out.data()), reinterpret_cast<char *>(Out.data() + Out.size())));
  }

  /// Drops the blocks named, forgets the epoch's writes of the files named.
  void drop(const Message &Mg) {
    const char *P = Mg.Buf.data();
    uint64_t NK, NF;
    std::memcpy(&NK, P, 8);
    std::vector<BlockKey> Keys(NK);
    for (uint64_t I = 0; I < NK; ++I) {
      std::memcpy(&Keys[I].File, P + 8 + 16 * I, 8);
      std::memcpy(&Keys[I].Stripe, P + 16 + 16 * I, 8);
    }
    const char *F = P + 8 + 16 * NK;
    std::memcpy(&NF, F, 8);
    for (const BlockKey &K : Cache.endEpoch(Keys, files(F + 8, NF)))
      Data.erase(K);
    post(Mg.Source, TagDropAck, {});
  }

  MPI_Comm M;
  const Topology &T;
  size_t Stripe;
  int P, X;
  bool IsIo;
  int Node;
  CacheNode Cache;
  std::unordered_map<BlockKey, std::vector<char>, BlockKeyHash> Data;
  NetModel Net;
  uint32_t Seq = 0;
  std::map<int, std::unique_ptr<DiskModel>> Disks;
  std::map<std::string, int> Fds;
  std::deque<Message> Deferred;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm Parent;
  MPI_Comm_get_parent(&Parent);
  if (Parent == MPI_COMM_NULL || argc != 3) {
    std::fprintf(stderr, "iopoly-cacheserver: started by libiopoly_mpi when IOPOLY_TOPOLOGY is set, not by hand "
                         "(arguments: TOPOLOGY.json STRIPE_BYTES)\n");
    MPI_Finalize();
    return 2;
  }
  Topology T;
  std::string Err = loadTopology(argv[1], T);
  size_t Stripe = std::strtoull(argv[2], nullptr, 10);
  MPI_Comm M;
  MPI_Intercomm_merge(Parent, 1, &M);
  int Rank = 0, Size = 0;
  MPI_Comm_rank(M, &Rank);
  MPI_Comm_size(M, &Size);
  if (!Err.empty() || Stripe == 0) {
    std::fprintf(stderr, "iopoly-cacheserver: %s\n", Err.empty() ? "bad stripe size" : Err.c_str());
    PMPI_Abort(M, 1);
  }
  int Servers = static_cast<int>(T.IoNodes.size() + T.StorageNodes.size());
  int P = Size - Servers;
  {
    Server S(M, T, Stripe, P, Rank - P);
    S.run();
  }
  MPI_Comm_free(&M);
  MPI_Comm_disconnect(&Parent);
  MPI_Finalize();
  return 0;
}
