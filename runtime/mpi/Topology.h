//===- Topology.h - The storage-cache hierarchy (IOPOLY_TOPOLOGY) -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 2, Fig. 1 and Table 1: client (compute) nodes, each with the ranks
// it runs and its cache (L1: the ranks' stripe buffers); I/O nodes, each
// with its cache (L2) and the clients it serves; storage nodes, each with
// its cache (L3), the I/O nodes it serves and the disks it holds; the disk
// model of each disk; the network between the levels. The hierarchy is a
// tree: a client's requests go to its I/O node, an I/O node's misses to its
// storage node, whose misses read the disk (through the storage node that
// holds it). Read from a JSON file (README, "Storage-cache hierarchy") by
// the runtime, the cache servers, iopoly-cachesim and the plugin; plain
// data and standard C++ only, so that all four can compile it.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_TOPOLOGY_H
#define IOPOLY_RUNTIME_MPI_TOPOLOGY_H

#include <cstdint>
#include <string>
#include <vector>

namespace iopoly {

struct TopoClient {
  std::string Name;
  std::vector<int> Ranks; ///< MPI ranks (of MPI_COMM_WORLD) running here
  uint64_t CacheBytes = 0; ///< 0: not given (the ranks' IOPOLY_BUFFER)
  int IoNode = -1;
};

struct TopoIoNode {
  std::string Name;
  uint64_t CacheBytes = 0;
  std::vector<int> Clients;
  int StorageNode = -1;
};

struct TopoStorageNode {
  std::string Name;
  uint64_t CacheBytes = 0;
  std::vector<int> IoNodes;
  std::vector<int> Disks;
};

struct TopoDisk {
  std::string Model = "hdd"; ///< as IOPOLY_DISK_MODEL
  int StorageNode = -1;      ///< the node that holds it
};

struct Topology {
  std::vector<TopoClient> Clients;
  std::vector<TopoIoNode> IoNodes;
  std::vector<TopoStorageNode> StorageNodes;
  std::vector<TopoDisk> Disks; ///< index = disk number (stripe b is on disk b mod T)
  double NetLatency = 50e-6;   ///< one hop between levels, seconds
  double NetBandwidth = 1e9;   ///< bytes per second per hop
  uint64_t Block = 0;          ///< cache block = stripe; 0: IOPOLY_STRIPE
  std::string Source;          ///< file it came from

  /// Number of compute ranks (every rank of every client).
  int numRanks() const;
  /// Client node of \p Rank, or -1.
  int clientOfRank(int Rank) const;
  /// "8 clients, 4 I/O nodes, 2 storage nodes, 8 disks".
  std::string summary() const;
};

/// Parses a topology (the file format of the README). Returns "" or an
/// error naming the field and the value.
std::string parseTopology(const std::string &Text, Topology &Out);
/// Reads and parses \p Path; errors name the file.
std::string loadTopology(const std::string &Path, Topology &Out);

} // namespace iopoly

#endif
