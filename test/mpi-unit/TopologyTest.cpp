//===- TopologyTest.cpp - IOPOLY_TOPOLOGY files: both spellings, errors ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/Topology.h"

#include <gtest/gtest.h>

using namespace iopoly;

TEST(Topology, UniformCountsMakePaper2Table1Tree) {
  Topology T;
  ASSERT_EQ("", parseTopology(R"({"uniform": {"clients": 64, "io_nodes": 32, "storage_nodes": 16,
      "io_cache": "2G", "storage_cache": "2G", "client_cache": "2G"}, "disk_model": "hdd"})",
                              T));
  EXPECT_EQ(64u, T.Clients.size());
  EXPECT_EQ(32u, T.IoNodes.size());
  EXPECT_EQ(16u, T.StorageNodes.size());
  EXPECT_EQ(16u, T.Disks.size()) << "one disk per storage node by default: data striped over all of them";
  EXPECT_EQ(1, T.Clients[3].IoNode) << "each I/O node serves 64/32 = 2 consecutive clients";
  EXPECT_EQ(5, T.IoNodes[10].StorageNode);
  EXPECT_EQ(64, T.numRanks());
  EXPECT_EQ(17, T.clientOfRank(17));
  EXPECT_EQ(2ull << 30, T.IoNodes[0].CacheBytes);
}

TEST(Topology, ExplicitListsByNameOrIndex) {
  Topology T;
  ASSERT_EQ("", parseTopology(R"({
    "clients": [{"name": "a", "ranks": [0, 1]}, {"name": "b", "ranks": [2]}],
    "io_nodes": [{"name": "i", "cache": 65536, "clients": ["a", 1]}],
    "storage_nodes": [{"cache": "1M", "io_nodes": ["i"], "disks": [0, 1]}],
    "network": {"latency": "0.2ms", "bandwidth": "100M"}, "block": "4K"})",
                              T));
  EXPECT_EQ(3, T.numRanks());
  EXPECT_EQ(0, T.clientOfRank(1));
  EXPECT_EQ(1, T.clientOfRank(2));
  EXPECT_DOUBLE_EQ(0.2e-3, T.NetLatency);
  EXPECT_DOUBLE_EQ(100.0 * (1 << 20), T.NetBandwidth);
  EXPECT_EQ(4096u, T.Block);
  EXPECT_EQ(0, T.Disks[1].StorageNode);
}

TEST(Topology, SizesFollowTheGrammarOfEveryOtherSize) {
  // common/Sizes.h, as IOPOLY_BUFFER and the plugin's stripe= read them.
  auto Cache = [](const std::string &Size, uint64_t &Out) {
    Topology T;
    std::string E = parseTopology(R"({"uniform": {"clients": 2, "io_nodes": 1, "storage_nodes": 1, "io_cache": ")" +
                                      Size + R"(", "storage_cache": "1M"}})",
                                  T);
    if (E.empty())
      Out = T.IoNodes[0].CacheBytes;
    return E;
  };
  const std::pair<const char *, uint64_t> Good[] = {
      {"64K", 65536}, {"64k", 65536}, {"64KB", 65536}, {"64KiB", 65536}, {"2g", 2ull << 30}, {"512B", 512}};
  for (const auto &[Text, Bytes] : Good) {
    uint64_t Got = 0;
    EXPECT_EQ("", Cache(Text, Got)) << Text;
    EXPECT_EQ(Bytes, Got) << Text;
  }
  for (const char *Bad : {"0", "0K", "64X", "1.5M", "-1", ""}) {
    uint64_t Got = 0;
    EXPECT_NE(std::string::npos, Cache(Bad, Got).find("is not a size")) << Bad;
  }
}

TEST(Topology, ErrorsNameTheField) {
  struct Case {
    const char *Text, *Want;
  } Cases[] = {
      {"[1]", "must be a JSON object"},
      {"{", "not valid JSON"},
      {R"({"uniform": {"clients": 6, "io_nodes": 4, "storage_nodes": 2, "io_cache": "1M", "storage_cache": "1M"}})",
       "must be a multiple of io_nodes"},
      {R"({"uniform": {"clients": 4, "io_nodes": 2, "storage_nodes": 1, "io_cache": "lots", "storage_cache": "1M"}})",
       "uniform.io_cache: '\"lots\"' is not a size"},
      {R"({"clients": [{"ranks": [0]}], "io_nodes": [{"cache": "1M", "clients": ["zz"]}],
           "storage_nodes": [{"cache": "1M", "io_nodes": [0], "disks": [0]}]})",
       "io_nodes[0].clients[0]: no node named 'zz'"},
      {R"({"clients": [{"ranks": [0]}, {"ranks": [2]}], "io_nodes": [{"cache": "1M", "clients": [0, 1]}],
           "storage_nodes": [{"cache": "1M", "io_nodes": [0], "disks": [0]}]})",
       "rank 2 is out of range"},
      {R"({"clients": [{"ranks": [0]}, {"ranks": [1]}], "io_nodes": [{"cache": "1M", "clients": [0]}],
           "storage_nodes": [{"cache": "1M", "io_nodes": [0], "disks": [0]}]})",
       "no I/O node serves client 'c1'"},
      {R"({"clients": [{"ranks": [0]}], "io_nodes": [{"cache": "1M", "clients": [0]}],
           "storage_nodes": [{"cache": "1M", "io_nodes": [0], "disks": [1]}]})",
       "no storage node holds disk 0"},
      {R"({"clients": [{"ranks": [0]}], "io_nodes": [{"cache": "1M", "clients": [0]}],
           "storage_nodes": [{"cache": "1M", "io_nodes": [0], "disks": [0]}], "netwrok": {}})",
       "netwrok: unknown field"},
      {R"({"clients": [{"ranks": [0]}], "io_nodes": [{"cache": "1M", "clients": [0]}],
           "storage_nodes": [{"cache": "1M", "io_nodes": [0], "disks": [0]}], "network": {"latency": "fast"}})",
       "network.latency"},
  };
  for (const Case &C : Cases) {
    Topology T;
    std::string E = parseTopology(C.Text, T);
    EXPECT_NE(std::string::npos, E.find(C.Want)) << C.Text << "\n  gave: " << E;
  }
  Topology T;
  EXPECT_NE(std::string::npos, loadTopology("/nonexistent/topo.json", T).find("/nonexistent/topo.json"));
}
