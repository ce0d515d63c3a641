//===- Figure1Test.cpp - Paper 4, Fig. 1: five partitions ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Four process nodes w, x, y, z and ten data nodes a..j, as the paper
// describes Fig. 1: a, c, d, f, g, i, j local; b written by x and read by
// w (broadcast); e written by several processes (central); h read by y and
// z (duplicated). Five partitions: one per process plus the central one.
// The chunks sit 100 bytes apart so none merge; the times make each
// partition's earliest-timestamp order differ from file order.
//
//===----------------------------------------------------------------------===//
#include "Harness.h"
#include "partition/Partitioner.h"

#include <gtest/gtest.h>

using namespace iopoly::prof;
using namespace iopoly::prof::test;

namespace {
enum : uint32_t { W = 0, X = 1, Y = 2, Z = 3 };
uint64_t at(char Chunk) { return static_cast<uint64_t>(Chunk - 'a') * 100; }

FilePlan figure1() {
  RunAccesses R = run(4, {
                             acc(W, 'w', at('a'), 50, 40),
                             acc(X, 'w', at('b'), 50, 10), acc(W, 'r', at('b'), 50, 20),
                             acc(X, 'r', at('c'), 50, 30),
                             acc(X, 'w', at('d'), 50, 1),
                             acc(Y, 'w', at('e'), 50, 5), acc(Z, 'w', at('e'), 50, 6),
                             acc(Y, 'r', at('f'), 50, 50),
                             acc(Y, 'w', at('g'), 50, 2),
                             acc(Y, 'r', at('h'), 50, 7), acc(Z, 'r', at('h'), 50, 8),
                             acc(Z, 'w', at('i'), 50, 3),
                             acc(Z, 'r', at('j'), 50, 60),
                         });
  return partitionFile("/fig1", 4, buildChunks({&R.List}));
}
} // namespace

TEST(Figure1, TenDataNodesFourProcessNodes) {
  FilePlan P = figure1();
  ASSERT_EQ(P.Chunks.size(), 10u);
  std::vector<Chunk> Cs;
  for (const PlannedChunk &C : P.Chunks)
    Cs.push_back(C.C);
  AccessGraph G = buildGraph(Cs, 4);
  EXPECT_EQ(G.Processes, 4u);
  EXPECT_EQ(G.DataNodes, 10u);
  EXPECT_EQ(G.Edges.size(), 13u);
}

TEST(Figure1, ClassesAsInThePaper) {
  FilePlan P = figure1();
  const char *Want = "LBLLCLLDLL"; // a..j
  for (int I = 0; I < 10; ++I) {
    char Got = "LDBC"[static_cast<int>(P.Chunks[static_cast<size_t>(I)].Class)];
    EXPECT_EQ(Got, Want[I]) << "chunk " << static_cast<char>('a' + I);
  }
  EXPECT_EQ(P.Chunks[1].Home, static_cast<int32_t>(X)); // b: the writer keeps it
  EXPECT_EQ(P.Chunks[1].Holders, (std::vector<uint32_t>{W, X}));
  EXPECT_EQ(P.Chunks[7].Holders, (std::vector<uint32_t>{Y, Z})); // h: copied to y and z
  EXPECT_EQ(P.Chunks[4].Home, -1);                               // e: central
}

TEST(Figure1, FivePartitionsOrderedByEarliestTimestamp) {
  FilePlan P = figure1();
  auto Names = [&](uint32_t R) {
    std::string S;
    for (const PartitionEntry &E : P.Partitions[R])
      S += static_cast<char>('a' + P.Chunks[E.Chunk].C.Offset / 100);
    return S;
  };
  EXPECT_EQ(Names(W), "ba");  // b first touched at 10, a at 40
  EXPECT_EQ(Names(X), "dbc"); // 1, 10, 30
  EXPECT_EQ(Names(Y), "ghf"); // 2, 7, 50
  EXPECT_EQ(Names(Z), "ihj"); // 3, 7 (h's earliest, by y), 60
  // The fifth partition: what no process holds, left on the shared file.
  int Central = 0;
  for (const PlannedChunk &C : P.Chunks)
    Central += C.Class == ChunkClass::Central && C.Holders.empty();
  EXPECT_EQ(Central, 1);
  // Local files are the partition's chunks back to back.
  for (uint32_t R = 0; R < 4; ++R) {
    uint64_t Off = 0;
    for (const PartitionEntry &E : P.Partitions[R]) {
      EXPECT_EQ(E.LocalOffset, Off);
      Off += P.Chunks[E.Chunk].C.Length;
    }
  }
}
