//===- SharedStripesTest.cpp - Dirty-byte runs of shared arrays -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two "ranks" in one process: two stripe buffers over the same in-memory
// files, each with its own handle of the array, marked shared by a group
// whose collectives are local. Whatever path a dirty stripe takes out of a
// buffer (eviction, flush, the sync point's runs), only the bytes that rank
// changed reach the file, so writers of disjoint bytes of one stripe never
// overwrite each other; OVERWRITE writes the whole stripe; a stripe
// attached for writing but left unchanged writes nothing; the runs of
// consecutive elements a rank wrote go out as one. Outside a
// distributed loop an evicted dirty stripe stays private (the spill) until
// the sync point or a flush; inside one it is written through.
//
//===----------------------------------------------------------------------===//
#include "BufferHarness.h"
#include "TestBackends.h"

#include "iopoly.h"

#include <gtest/gtest.h>

using namespace iopoly;
using namespace iopoly::test;

namespace {

/// Forwards to a file shared by both ranks.
class SharedFile : public BackendFile {
public:
  explicit SharedFile(std::shared_ptr<MemFile> F) : F(std::move(F)) {}
  ssize_t readAt(void *B, size_t N, uint64_t O) override { return F->readAt(B, N, O); }
  ssize_t writeAt(const void *B, size_t N, uint64_t O) override { return F->writeAt(B, N, O); }
  int sync() override { return 0; }
  int64_t size() override { return F->size(); }
  int resize(uint64_t S) override { return F->resize(S); }
  int close() override { return 0; }
  bool direct() const override { return false; }
  std::shared_ptr<MemFile> F;
};

/// Collectives of a group whose other members act in the same thread.
class LocalGroup : public Group {
public:
  explicit LocalGroup(int R) : R(R) {}
  int rank() const override { return R; }
  int size() const override { return 2; }
  Status agree(const Status &Mine) override { return Mine; }
  Status same(const std::string &, const std::string &) override { return {}; }
  void broadcast(std::vector<unsigned long long> &, int) override {}
  void allAnd(std::vector<unsigned long long> &) override {}
  void allSum(std::vector<unsigned long long> &) override {}
  void barrier() override {}
  const void *comm() const override { return nullptr; }
  bool coveredBy(const void *) const override { return true; }
  std::string describe() const override { return "two local ranks"; }
  int R;
};

constexpr size_t Stripe = 256, Disks = 2, Bytes = 16 * Stripe;

struct Rank {
  Rank(int R, const std::vector<std::shared_ptr<MemFile>> &Files, size_t Frames, size_t Elem = 1)
      : H(Frames, Stripe, Disks, /*Prefetch=*/false, "none", /*Threads=*/false) {
    Geometry G;
    size_t Dims[1] = {Bytes / Elem};
    EXPECT_TRUE(Geometry::make(Elem, 1, Dims, nullptr, Stripe, Disks, G).ok());
    A = std::make_unique<iopoly_array>(G);
    A->Name = "shared";
    A->Id = 1;
    A->Writable = true;
    for (size_t D = 0; D < Disks; ++D) {
      A->Files.push_back(std::make_unique<SharedFile>(Files[D]));
      A->Paths.push_back("mem:disk" + std::to_string(D));
    }
    A->Grp = std::make_shared<LocalGroup>(R);
    H.track(*A);
  }
  /// Writes Value into bytes [From, To) of the array, stripe by stripe.
  void write(size_t From, size_t To, char Value, int Mode = IOPOLY_WRITE) {
    for (size_t B = From / Stripe; B * Stripe < To; ++B) {
      void *P = nullptr;
      ASSERT_TRUE(H.Buffer->attach(A.get(), B, Mode, P).ok());
      for (size_t I = std::max(From, B * Stripe); I < std::min(To, (B + 1) * Stripe); ++I)
        static_cast<char *>(P)[I - B * Stripe] = Value;
      ASSERT_TRUE(H.Buffer->release(A.get(), B).ok());
    }
  }
  BufferHarness H;
  std::unique_ptr<iopoly_array> A;
};

struct Pair {
  explicit Pair(size_t Frames = 4, size_t Elem = 1) {
    for (size_t D = 0; D < Disks; ++D) {
      Files.push_back(std::make_shared<MemFile>());
      Geometry G;
      size_t Dims[1] = {Bytes};
      (void)Geometry::make(1, 1, Dims, nullptr, Stripe, Disks, G);
      Files.back()->Data.assign(G.expectedFileSize(D), 0);
    }
    R0 = std::make_unique<Rank>(0, Files, Frames, Elem);
    R1 = std::make_unique<Rank>(1, Files, Frames, Elem);
  }
  /// The byte at array offset \p Off as the files hold it.
  char onDisk(size_t Off) const {
    const Geometry &G = R0->A->Geo;
    size_t S = Off / Stripe;
    return Files[G.diskOf(S)]->Data[G.fileOffset(S) + Off % Stripe];
  }
  std::vector<std::shared_ptr<MemFile>> Files;
  std::unique_ptr<Rank> R0, R1;
};

} // namespace

TEST(SharedStripes, FlushWritesOnlyTheBytesEachRankChanged) {
  Pair P;
  P.R0->write(0, 10, 'a');
  P.R1->write(10, 20, 'b'); // same stripe, other bytes
  ASSERT_TRUE(P.R1->H.Buffer->flush(nullptr).ok());
  ASSERT_TRUE(P.R0->H.Buffer->flush(nullptr).ok()); // R0's stale copy of bytes 10..19 must not win
  for (size_t I = 0; I < 10; ++I)
    EXPECT_EQ('a', P.onDisk(I)) << I;
  for (size_t I = 10; I < 20; ++I)
    EXPECT_EQ('b', P.onDisk(I)) << I;
  EXPECT_EQ(0, P.onDisk(20));
  EXPECT_EQ(10u, P.R0->H.Counters.C.BytesWritten) << "only the changed bytes are counted";
}

TEST(SharedStripes, EvictionWritesOnlyTheChangedRuns) {
  Pair P(/*Frames=*/2);
  // Every other 4-byte word of every stripe for R0, the others for R1;
  // with two frames, stripes are evicted (written back) as the walk goes.
  for (size_t Off = 0; Off < Bytes; Off += 8) {
    P.R0->write(Off, Off + 4, 'x');
    P.R1->write(Off + 4, Off + 8, 'y');
  }
  ASSERT_TRUE(P.R0->H.Buffer->flush(nullptr).ok());
  ASSERT_TRUE(P.R1->H.Buffer->flush(nullptr).ok());
  EXPECT_GT(P.R0->H.Counters.C.Evictions, 0u);
  for (size_t Off = 0; Off < Bytes; ++Off)
    ASSERT_EQ(Off % 8 < 4 ? 'x' : 'y', P.onDisk(Off)) << "byte " << Off;
}

TEST(SharedStripes, UnchangedStripeAttachedForWritingWritesNothing) {
  Pair P;
  void *Ptr = nullptr;
  ASSERT_TRUE(P.R0->H.Buffer->attach(P.R0->A.get(), 3, IOPOLY_WRITE, Ptr).ok());
  ASSERT_TRUE(P.R0->H.Buffer->release(P.R0->A.get(), 3).ok());
  ASSERT_TRUE(P.R0->H.Buffer->flush(nullptr).ok());
  EXPECT_EQ(0u, P.R0->H.Counters.C.Writebacks);
  EXPECT_EQ(0u, P.Files[0]->WritesAt.size() + P.Files[1]->WritesAt.size());
}

TEST(SharedStripes, OverwriteWritesTheWholeStripe) {
  Pair P;
  P.R0->write(Stripe, 2 * Stripe, 'w', IOPOLY_WRITE | IOPOLY_OVERWRITE);
  ASSERT_TRUE(P.R0->H.Buffer->flush(nullptr).ok());
  EXPECT_EQ(Stripe, P.R0->H.Counters.C.BytesWritten);
}

TEST(SharedStripes, SyncRunsThenDropKeepsOnlyAttachedStripes) {
  Pair P;
  P.R0->write(0, 3, 'p');
  P.R0->write(Stripe + 5, Stripe + 9, 'q');
  void *Held = nullptr;
  ASSERT_TRUE(P.R0->H.Buffer->attach(P.R0->A.get(), 2, IOPOLY_READ, Held).ok());
  std::vector<std::vector<IoRun>> Runs;
  std::vector<std::string> Data;
  ASSERT_TRUE(P.R0->H.Buffer->takeDirtyRuns(P.R0->A.get(), Runs, Data).ok());
  ASSERT_EQ(Disks, Runs.size());
  const Geometry &G = P.R0->A->Geo;
  ASSERT_EQ(1u, Runs[0].size());
  EXPECT_EQ(G.fileOffset(0), Runs[0][0].Offset);
  EXPECT_EQ(3u, Runs[0][0].Len);
  EXPECT_EQ("ppp", Data[0]);
  ASSERT_EQ(1u, Runs[1].size());
  EXPECT_EQ(G.fileOffset(1) + 5, Runs[1][0].Offset);
  EXPECT_EQ("qqqq", Data[1]);
  std::vector<std::pair<size_t, char *>> Pinned;
  P.R0->H.Buffer->dropAfterSync(P.R0->A.get(), {true, true}, Pinned);
  ASSERT_EQ(1u, Pinned.size());
  EXPECT_EQ(2u, Pinned[0].first);
  EXPECT_EQ(2u, P.R0->H.Counters.C.SyncDrops) << "stripes 0 and 1 were clean copies";
  P.R0->H.Buffer->rereadDone(P.R0->A.get());
  ASSERT_TRUE(P.R0->H.Buffer->release(P.R0->A.get(), 2).ok());
}

TEST(SharedStripes, EvictionOutsideDistributedLoopStaysPrivateUntilSync) {
  Pair P(/*Frames=*/2);
  // Every stripe changed by R0 with two frames: most are evicted, but none
  // may reach the shared files before the sync point (another rank running
  // the same code would read R0's update back and apply it again).
  P.R0->write(0, Bytes, 'r');
  EXPECT_GT(P.R0->H.Counters.C.SharedSpills, 0u);
  for (size_t Off = 0; Off < Bytes; ++Off)
    ASSERT_EQ(0, P.onDisk(Off)) << "byte " << Off << " left the rank before the sync point";
  // R0 sees its own writes, read back from the spill with their twin.
  void *Ptr = nullptr;
  ASSERT_TRUE(P.R0->H.Buffer->attach(P.R0->A.get(), 0, IOPOLY_READ, Ptr).ok());
  EXPECT_EQ('r', static_cast<char *>(Ptr)[0]);
  ASSERT_TRUE(P.R0->H.Buffer->release(P.R0->A.get(), 0).ok());
  EXPECT_GT(P.R0->H.Counters.C.SpillReads, 0u);
  // The sync point hands over every changed byte, spilled or resident.
  std::vector<std::vector<IoRun>> Runs;
  std::vector<std::string> Data;
  ASSERT_TRUE(P.R0->H.Buffer->takeDirtyRuns(P.R0->A.get(), Runs, Data).ok());
  size_t Total = 0;
  for (const std::string &D : Data) {
    Total += D.size();
    EXPECT_EQ(std::string(D.size(), 'r'), D);
  }
  EXPECT_EQ(Bytes, Total);
}

TEST(SharedStripes, EvictionInsideDistributedLoopWritesThrough) {
  Pair P(/*Frames=*/2);
  P.R0->H.Buffer->setSharedWriteThrough(true);
  P.R0->write(0, Bytes, 'd');
  EXPECT_EQ(0u, P.R0->H.Counters.C.SharedSpills);
  EXPECT_GT(P.R0->H.Counters.C.Evictions, 0u);
  EXPECT_EQ('d', P.onDisk(0)) << "stripe 0 was evicted first and written through";
}

TEST(SharedStripes, FlushWritesSpilledStripesThrough) {
  Pair P(/*Frames=*/2);
  P.R0->write(0, 10, 'a');
  P.R1->write(10, 20, 'b');
  P.R0->write(4 * Stripe, 5 * Stripe, 'c'); // evicts stripe 0 of R0 into its spill
  P.R0->write(6 * Stripe, 7 * Stripe, 'c');
  ASSERT_GT(P.R0->H.Counters.C.SharedSpills, 0u);
  ASSERT_TRUE(P.R1->H.Buffer->flush(nullptr).ok());
  ASSERT_TRUE(P.R0->H.Buffer->flush(nullptr).ok());
  for (size_t I = 0; I < 10; ++I)
    EXPECT_EQ('a', P.onDisk(I)) << I;
  for (size_t I = 10; I < 20; ++I)
    EXPECT_EQ('b', P.onDisk(I)) << "R0's spilled stripe must carry only R0's bytes: " << I;
  EXPECT_EQ('c', P.onDisk(4 * Stripe));
}

/// Doubles written over zeros differ from the twin in their top bytes only.
static void writeTopBytes(Rank &R, size_t FirstElem, size_t EndElem, size_t Step) {
  for (size_t E = FirstElem; E < EndElem; E += Step)
    R.write(E * 8 + 6, E * 8 + 8, static_cast<char>(0x40 + E % 7));
}

TEST(SharedStripes, RunsOfConsecutiveElementsGoOutAsOne) {
  Pair P(/*Frames=*/4, /*Elem=*/8);
  writeTopBytes(*P.R0, 0, 16, 1); // elements 0..15 of stripe 0: 16 runs of 2 bytes
  writeTopBytes(*P.R1, 16, 32, 1); // 16..31, the same stripe
  ASSERT_TRUE(P.R1->H.Buffer->flush(nullptr).ok());
  ASSERT_TRUE(P.R0->H.Buffer->flush(nullptr).ok());
  for (size_t Off = 0; Off < 32 * 8; ++Off)
    ASSERT_EQ(Off % 8 >= 6 ? static_cast<char>(0x40 + Off / 8 % 7) : 0, P.onDisk(Off)) << "byte " << Off;
  EXPECT_EQ(2u, P.Files[0]->WritesAt.size()) << "one transfer per rank, not one per element";
  EXPECT_EQ(15u * 8 + 2, P.R0->H.Counters.C.BytesWritten) << "from element 0's byte 6 to element 15's byte 7";
}

TEST(SharedStripes, RunsAreNotJoinedAcrossAnotherRanksElements) {
  Pair P(/*Frames=*/4, /*Elem=*/8);
  writeTopBytes(*P.R0, 0, 32, 2); // even elements
  writeTopBytes(*P.R1, 1, 32, 2); // odd elements: between every two runs of R0
  ASSERT_TRUE(P.R0->H.Buffer->flush(nullptr).ok());
  ASSERT_TRUE(P.R1->H.Buffer->flush(nullptr).ok());
  for (size_t Off = 0; Off < 32 * 8; ++Off)
    ASSERT_EQ(Off % 8 >= 6 ? static_cast<char>(0x40 + Off / 8 % 7) : 0, P.onDisk(Off)) << "byte " << Off;
  EXPECT_EQ(32u, P.Files[0]->WritesAt.size()) << "every element on its own";
}

TEST(SharedStripes, JoinWithinElementsKeepsByteArraysAsTheyAre) {
  std::vector<IoRun> Runs{{0, 2}, {3, 1}, {9, 4}};
  EXPECT_EQ(3u, joinWithinElements(Runs, 1, 0).size());
  // Elements of 4 bytes: byte 2 lies in element 0 (run 1's), run 2's byte 3
  // too; bytes 4..8 hold element 1, which no run touches.
  std::vector<IoRun> J = joinWithinElements(Runs, 4, 0);
  ASSERT_EQ(2u, J.size());
  EXPECT_EQ(0u, J[0].Offset);
  EXPECT_EQ(4u, J[0].Len);
  EXPECT_EQ(9u, J[1].Offset);
  // The stripe's place in the array moves the element boundaries: 2 bytes
  // on, the runs end in elements 0, 1 and 2, each next to the one before.
  std::vector<IoRun> Moved = joinWithinElements(Runs, 4, 2);
  ASSERT_EQ(1u, Moved.size());
  EXPECT_EQ(13u, Moved[0].Len);
}
