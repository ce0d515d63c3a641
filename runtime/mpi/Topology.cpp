//===- Topology.cpp - The storage-cache hierarchy (IOPOLY_TOPOLOGY) --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two spellings of the same tree: explicit lists of nodes, or "uniform"
// counts (paper 2's configurations (w, x, y): w clients, x I/O nodes, y
// storage nodes, each I/O node serving w/x consecutive clients, each
// storage node x/y consecutive I/O nodes, disk d held by storage node
// d mod y, as data striped over every storage node).
//
//===----------------------------------------------------------------------===//
#include "mpi/Topology.h"
// By path: this file is also compiled into the plugin (IOPolyMapping), whose
// include path does not have common/.
#include "../../common/Sizes.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace iopoly {

using nlohmann::json;

namespace {

bool parseSeconds(const std::string &Text, double &Out) {
  char *End = nullptr;
  double V = std::strtod(Text.c_str(), &End);
  std::string U = End;
  double Scale = U == "s" ? 1 : U == "ms" ? 1e-3 : U == "us" ? 1e-6 : U == "ns" ? 1e-9 : -1;
  if (End == Text.c_str() || Scale < 0 || !std::isfinite(V) || V < 0)
    return false;
  Out = V * Scale;
  return true;
}

/// Errors carry the path of the field in the file ("io_nodes[2].cache").
struct Reader {
  std::string Err;
  bool fail(const std::string &Where, const std::string &Why) {
    if (Err.empty())
      Err = Where + ": " + Why;
    return false;
  }
  bool size(const json &J, const std::string &Where, uint64_t &Out) {
    if (J.is_number_unsigned() && J.get<uint64_t>() > 0) {
      Out = J.get<uint64_t>();
      return true;
    }
    if (J.is_string() && parseByteSize(J.get<std::string>(), Out))
      return true;
    return fail(Where, "'" + J.dump() + "' is not a size (examples: 65536, \"64K\", \"2G\")");
  }
  bool count(const json &J, const std::string &Where, int &Out) {
    if (!J.is_number_unsigned() || J.get<uint64_t>() == 0 || J.get<uint64_t>() > 1000000)
      return fail(Where, "'" + J.dump() + "' is not a count between 1 and 1000000");
    Out = static_cast<int>(J.get<uint64_t>());
    return true;
  }
  bool str(const json &J, const std::string &Where, std::string &Out) {
    if (!J.is_string() || J.get<std::string>().empty())
      return fail(Where, "'" + J.dump() + "' is not a non-empty string");
    Out = J.get<std::string>();
    return true;
  }
  /// Names (or indices) of nodes of one kind, resolved to indices.
  bool refs(const json &J, const std::string &Where, const std::map<std::string, int> &Names, size_t Count,
            std::vector<int> &Out) {
    if (!J.is_array() || J.empty())
      return fail(Where, "must be a non-empty list of node names or indices");
    for (size_t K = 0; K < J.size(); ++K) {
      const json &E = J[K];
      std::string At = Where + "[" + std::to_string(K) + "]";
      if (E.is_string()) {
        auto It = Names.find(E.get<std::string>());
        if (It == Names.end())
          return fail(At, "no node named '" + E.get<std::string>() + "'");
        Out.push_back(It->second);
      } else if (E.is_number_unsigned() && E.get<uint64_t>() < Count) {
        Out.push_back(static_cast<int>(E.get<uint64_t>()));
      } else {
        return fail(At, "'" + E.dump() + "' is neither a node name nor an index below " + std::to_string(Count));
      }
    }
    return true;
  }
  void known(const json &J, const std::string &Where, std::initializer_list<const char *> Keys) {
    for (auto It = J.begin(); It != J.end(); ++It) {
      bool Ok = false;
      for (const char *K : Keys)
        Ok |= It.key() == K;
      if (!Ok) {
        std::string List;
        for (const char *K : Keys)
          List += std::string(List.empty() ? "" : ", ") + K;
        fail(Where.empty() ? It.key() : Where + "." + It.key(), "unknown field (expected one of " + List + ")");
      }
    }
  }
};

bool readUniform(Reader &R, const json &U, Topology &T) {
  R.known(U, "uniform",
          {"clients", "io_nodes", "storage_nodes", "ranks_per_client", "disks", "client_cache", "io_cache",
           "storage_cache"});
  int W = 0, X = 0, Y = 0, Rpc = 1, D = 0;
  for (auto [Key, Var] : {std::pair<const char *, int *>{"clients", &W}, {"io_nodes", &X}, {"storage_nodes", &Y}})
    if (!U.contains(Key) ? R.fail("uniform." + std::string(Key), "missing") : !R.count(U[Key], std::string("uniform.") + Key, *Var))
      return false;
  if (U.contains("ranks_per_client") && !R.count(U["ranks_per_client"], "uniform.ranks_per_client", Rpc))
    return false;
  D = Y;
  if (U.contains("disks") && !R.count(U["disks"], "uniform.disks", D))
    return false;
  if (W % X || X % Y)
    return R.fail("uniform", "clients (" + std::to_string(W) + ") must be a multiple of io_nodes (" +
                                 std::to_string(X) + "), and io_nodes of storage_nodes (" + std::to_string(Y) + ")");
  uint64_t CC = 0, IC = 0, SC = 0;
  if (U.contains("client_cache") && !R.size(U["client_cache"], "uniform.client_cache", CC))
    return false;
  for (auto [Key, Var] : {std::pair<const char *, uint64_t *>{"io_cache", &IC}, {"storage_cache", &SC}})
    if (!U.contains(Key) ? R.fail("uniform." + std::string(Key), "missing") : !R.size(U[Key], std::string("uniform.") + Key, *Var))
      return false;
  for (int S = 0; S < Y; ++S)
    T.StorageNodes.push_back({"s" + std::to_string(S), SC, {}, {}});
  for (int I = 0; I < X; ++I) {
    int S = I / (X / Y);
    T.IoNodes.push_back({"io" + std::to_string(I), IC, {}, S});
    T.StorageNodes[static_cast<size_t>(S)].IoNodes.push_back(I);
  }
  for (int C = 0; C < W; ++C) {
    int I = C / (W / X);
    TopoClient Cl{"c" + std::to_string(C), {}, CC, I};
    for (int K = 0; K < Rpc; ++K)
      Cl.Ranks.push_back(C * Rpc + K);
    T.Clients.push_back(Cl);
    T.IoNodes[static_cast<size_t>(I)].Clients.push_back(C);
  }
  for (int Disk = 0; Disk < D; ++Disk) {
    TopoDisk Dk;
    Dk.StorageNode = Disk % Y;
    T.Disks.push_back(Dk);
    T.StorageNodes[static_cast<size_t>(Disk % Y)].Disks.push_back(Disk);
  }
  return true;
}

bool readExplicit(Reader &R, const json &J, Topology &T) {
  for (const char *K : {"clients", "io_nodes", "storage_nodes"})
    if (!J.contains(K) || !J[K].is_array() || J[K].empty())
      return R.fail(K, "missing or empty (a list of nodes)");
  std::map<std::string, int> CN, IN;
  for (size_t K = 0; K < J["clients"].size(); ++K) {
    const json &E = J["clients"][K];
    std::string At = "clients[" + std::to_string(K) + "]";
    if (!E.is_object())
      return R.fail(At, "must be an object");
    R.known(E, At, {"name", "ranks", "cache"});
    TopoClient C;
    C.Name = "c" + std::to_string(K);
    if (E.contains("name") && !R.str(E["name"], At + ".name", C.Name))
      return false;
    if (!E.contains("ranks") || !E["ranks"].is_array() || E["ranks"].empty())
      return R.fail(At + ".ranks", "missing or empty (the MPI ranks this client node runs)");
    for (const json &Rk : E["ranks"]) {
      if (!Rk.is_number_unsigned())
        return R.fail(At + ".ranks", "'" + Rk.dump() + "' is not a rank");
      C.Ranks.push_back(static_cast<int>(Rk.get<uint64_t>()));
    }
    if (E.contains("cache") && !R.size(E["cache"], At + ".cache", C.CacheBytes))
      return false;
    if (!CN.emplace(C.Name, static_cast<int>(K)).second)
      return R.fail(At + ".name", "'" + C.Name + "' names two clients");
    T.Clients.push_back(C);
  }
  for (size_t K = 0; K < J["io_nodes"].size(); ++K) {
    const json &E = J["io_nodes"][K];
    std::string At = "io_nodes[" + std::to_string(K) + "]";
    if (!E.is_object())
      return R.fail(At, "must be an object");
    R.known(E, At, {"name", "cache", "clients"});
    TopoIoNode N;
    N.Name = "io" + std::to_string(K);
    if (E.contains("name") && !R.str(E["name"], At + ".name", N.Name))
      return false;
    if (!E.contains("cache") ? R.fail(At + ".cache", "missing") : !R.size(E["cache"], At + ".cache", N.CacheBytes))
      return false;
    if (!E.contains("clients") ? R.fail(At + ".clients", "missing")
                               : !R.refs(E["clients"], At + ".clients", CN, T.Clients.size(), N.Clients))
      return false;
    if (!IN.emplace(N.Name, static_cast<int>(K)).second)
      return R.fail(At + ".name", "'" + N.Name + "' names two I/O nodes");
    T.IoNodes.push_back(N);
  }
  for (size_t K = 0; K < J["storage_nodes"].size(); ++K) {
    const json &E = J["storage_nodes"][K];
    std::string At = "storage_nodes[" + std::to_string(K) + "]";
    if (!E.is_object())
      return R.fail(At, "must be an object");
    R.known(E, At, {"name", "cache", "io_nodes", "disks"});
    TopoStorageNode N;
    N.Name = "s" + std::to_string(K);
    if (E.contains("name") && !R.str(E["name"], At + ".name", N.Name))
      return false;
    if (!E.contains("cache") ? R.fail(At + ".cache", "missing") : !R.size(E["cache"], At + ".cache", N.CacheBytes))
      return false;
    if (!E.contains("io_nodes") ? R.fail(At + ".io_nodes", "missing")
                                : !R.refs(E["io_nodes"], At + ".io_nodes", IN, T.IoNodes.size(), N.IoNodes))
      return false;
    if (!E.contains("disks") || !E["disks"].is_array() || E["disks"].empty())
      return R.fail(At + ".disks", "missing or empty (the disk numbers this storage node holds)");
    for (const json &D : E["disks"]) {
      if (!D.is_number_unsigned() || D.get<uint64_t>() > 4096)
        return R.fail(At + ".disks", "'" + D.dump() + "' is not a disk number");
      N.Disks.push_back(static_cast<int>(D.get<uint64_t>()));
    }
    T.StorageNodes.push_back(N);
  }
  return true;
}

/// Links children to parents and checks that the nodes form one tree and
/// the ranks and disks are numbered 0..n-1, each exactly once.
bool link(Reader &R, Topology &T) {
  for (size_t I = 0; I < T.IoNodes.size(); ++I)
    for (int C : T.IoNodes[I].Clients) {
      if (T.Clients[static_cast<size_t>(C)].IoNode >= 0 && T.Clients[static_cast<size_t>(C)].IoNode != static_cast<int>(I))
        return R.fail("io_nodes[" + std::to_string(I) + "].clients",
                      "client '" + T.Clients[static_cast<size_t>(C)].Name + "' is served by two I/O nodes");
      T.Clients[static_cast<size_t>(C)].IoNode = static_cast<int>(I);
    }
  for (size_t S = 0; S < T.StorageNodes.size(); ++S) {
    for (int I : T.StorageNodes[S].IoNodes) {
      TopoIoNode &N = T.IoNodes[static_cast<size_t>(I)];
      if (N.StorageNode >= 0 && N.StorageNode != static_cast<int>(S))
        return R.fail("storage_nodes[" + std::to_string(S) + "].io_nodes",
                      "I/O node '" + N.Name + "' is served by two storage nodes");
      N.StorageNode = static_cast<int>(S);
    }
    for (int D : T.StorageNodes[S].Disks) {
      if (T.Disks.size() <= static_cast<size_t>(D))
        T.Disks.resize(static_cast<size_t>(D) + 1);
      if (T.Disks[static_cast<size_t>(D)].StorageNode >= 0 && T.Disks[static_cast<size_t>(D)].StorageNode != static_cast<int>(S))
        return R.fail("storage_nodes[" + std::to_string(S) + "].disks",
                      "disk " + std::to_string(D) + " is held by two storage nodes");
      T.Disks[static_cast<size_t>(D)].StorageNode = static_cast<int>(S);
    }
  }
  for (const TopoClient &C : T.Clients)
    if (C.IoNode < 0)
      return R.fail("io_nodes", "no I/O node serves client '" + C.Name + "'");
  for (const TopoIoNode &N : T.IoNodes)
    if (N.StorageNode < 0)
      return R.fail("storage_nodes", "no storage node serves I/O node '" + N.Name + "'");
  for (size_t D = 0; D < T.Disks.size(); ++D)
    if (T.Disks[D].StorageNode < 0)
      return R.fail("storage_nodes", "no storage node holds disk " + std::to_string(D) +
                                         " (disks are numbered 0..n-1, as the disk directories)");
  std::vector<int> Seen(static_cast<size_t>(T.numRanks()), -1);
  for (size_t C = 0; C < T.Clients.size(); ++C)
    for (int Rk : T.Clients[C].Ranks) {
      if (Rk < 0 || static_cast<size_t>(Rk) >= Seen.size())
        return R.fail("clients[" + std::to_string(C) + "].ranks",
                      "rank " + std::to_string(Rk) + " is out of range: the clients run ranks 0.." +
                          std::to_string(Seen.size() - 1));
      if (Seen[static_cast<size_t>(Rk)] >= 0)
        return R.fail("clients[" + std::to_string(C) + "].ranks", "rank " + std::to_string(Rk) + " runs on two clients");
      Seen[static_cast<size_t>(Rk)] = static_cast<int>(C);
    }
  return true;
}

} // namespace

int Topology::numRanks() const {
  int N = 0;
  for (const TopoClient &C : Clients)
    N += static_cast<int>(C.Ranks.size());
  return N;
}

int Topology::clientOfRank(int Rank) const {
  for (size_t C = 0; C < Clients.size(); ++C)
    for (int R : Clients[C].Ranks)
      if (R == Rank)
        return static_cast<int>(C);
  return -1;
}

std::string Topology::summary() const {
  return std::to_string(Clients.size()) + " clients, " + std::to_string(IoNodes.size()) + " I/O nodes, " +
         std::to_string(StorageNodes.size()) + " storage nodes, " + std::to_string(Disks.size()) + " disks";
}

std::string parseTopology(const std::string &Text, Topology &Out) {
  json J = json::parse(Text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (J.is_discarded())
    return "not valid JSON";
  if (!J.is_object())
    return "the topology must be a JSON object";
  Reader R;
  R.known(J, "", {"uniform", "clients", "io_nodes", "storage_nodes", "network", "disk_model", "disk_models", "block",
                  "comment"});
  Topology T;
  bool Ok = J.contains("uniform") ? (J.contains("clients") ? R.fail("uniform", "give either 'uniform' or the node lists")
                                                            : readUniform(R, J["uniform"], T))
                                  : readExplicit(R, J, T);
  if (Ok)
    Ok = link(R, T);
  if (Ok && J.contains("network")) {
    const json &N = J["network"];
    R.known(N, "network", {"latency", "bandwidth"});
    std::string L;
    if (N.contains("latency") && !(N["latency"].is_string() && parseSeconds(N["latency"].get<std::string>(), T.NetLatency)))
      Ok = R.fail("network.latency", "'" + N["latency"].dump() + "' is not a duration (examples: \"50us\", \"0.2ms\")");
    uint64_t Bw = 0;
    if (Ok && N.contains("bandwidth")) {
      if (!R.size(N["bandwidth"], "network.bandwidth", Bw))
        Ok = false;
      else
        T.NetBandwidth = static_cast<double>(Bw);
    }
  }
  if (Ok && J.contains("disk_model")) {
    std::string M;
    if (!R.str(J["disk_model"], "disk_model", M))
      Ok = false;
    for (TopoDisk &D : T.Disks)
      D.Model = M;
  }
  if (Ok && J.contains("disk_models")) {
    const json &M = J["disk_models"];
    if (!M.is_array() || M.size() != T.Disks.size())
      Ok = R.fail("disk_models", "must list one model per disk (" + std::to_string(T.Disks.size()) + ")");
    for (size_t D = 0; Ok && D < M.size(); ++D)
      Ok = R.str(M[D], "disk_models[" + std::to_string(D) + "]", T.Disks[D].Model);
  }
  if (Ok && J.contains("block"))
    Ok = R.size(J["block"], "block", T.Block);
  if (!R.Err.empty())
    return R.Err;
  Out = std::move(T);
  return "";
}

std::string loadTopology(const std::string &Path, Topology &Out) {
  std::ifstream In(Path);
  if (!In)
    return "cannot read the topology file '" + Path + "'";
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Err = parseTopology(SS.str(), Out);
  if (!Err.empty())
    return "topology file '" + Path + "': " + Err;
  Out.Source = Path;
  return "";
}

} // namespace iopoly
