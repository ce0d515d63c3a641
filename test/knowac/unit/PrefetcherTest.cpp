//===- PrefetcherTest.cpp - The helper thread and cache coherence ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The helper reads what the graph predicts into the cache, byte for byte as
// in the file; and however its reads interleave with writes of the main
// thread (announced as the session does: FileGuard, invalidation), nothing
// it serves is ever older than the file. Run again under ThreadSanitizer.
//
//===----------------------------------------------------------------------===//
#include "KnowacTestUtil.h"
#include "Prefetcher.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <random>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

using namespace iopoly::knowac;
using namespace iopoly::knowac::test;

namespace {
constexpr int64_t Part = 16384; // each variable: Part bytes of NC_BYTE

/// Variables "a", "b", "c", ... of one file, Part bytes each, in order.
class FileSource : public TaskSource {
public:
  FileSource(std::string Path, FileId Id) : Path(std::move(Path)), Id(Id) {}
  bool resolve(const Prediction &P, ReadTask &Out) override {
    // "R/0r/<var>/<region>"
    size_t A = P.Key.find('/', P.Key.find('/') + 1), B = P.Key.find('/', A + 1);
    std::string Var = P.Key.substr(A + 1, B - A - 1);
    if (Var.size() != 1)
      return false;
    int Index = Var[0] - 'a';
    Out.Key = P.Key;
    Out.File = Id;
    Out.Path = Path;
    Out.Var = Index;
    Out.B = Box{{0}, {Part}, {1}};
    Out.Layout.Name = Var;
    Out.Layout.XType = NcByte;
    Out.Layout.ElemSize = 1;
    Out.Layout.Dims = {Part};
    Out.Layout.Begin = Index * Part;
    Out.Guard = Guard;
    ++Resolved;
    return true;
  }
  std::string Path;
  FileId Id;
  std::shared_ptr<FileGuard> Guard = std::make_shared<FileGuard>();
  std::atomic<int> Resolved{0};
};

std::string makeFile(const Scratch &T, int Vars) {
  std::string P = T.file("data.bin");
  int Fd = ::open(P.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  std::vector<unsigned char> B(size_t(Part) * size_t(Vars));
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = (unsigned char)(I * 31 + 7);
  EXPECT_EQ(::write(Fd, B.data(), B.size()), ssize_t(B.size()));
  ::close(Fd);
  // Old enough that its time stamps are trusted.
  struct timespec Old[2];
  clock_gettime(CLOCK_REALTIME, &Old[0]);
  Old[0].tv_sec -= 10;
  Old[1] = Old[0];
  ::utimensat(AT_FDCWD, P.c_str(), Old, 0);
  return P;
}

std::vector<unsigned char> bytesOf(const std::shared_ptr<Entry> &E) {
  return std::vector<unsigned char>(E->Data.data(), E->Data.data() + E->Data.size());
}

std::vector<unsigned char> fileBytes(const std::string &P, int64_t Off, int64_t N) {
  std::vector<unsigned char> B(static_cast<size_t>(N));
  int Fd = ::open(P.c_str(), O_RDONLY);
  EXPECT_EQ(::pread(Fd, B.data(), size_t(N), Off), ssize_t(N));
  ::close(Fd);
  return B;
}
} // namespace

TEST(Prefetcher, ReadsWhatTheGraphPredicts) {
  Scratch T;
  std::string P = makeFile(T, 4);
  FileSig Sig;
  ASSERT_TRUE(statFile(P, Sig));
  FileSource Src(P, Sig.Id);
  Graph G;
  G.merge(runOf({"a", "b", "c", "d"}, 0.05, 1e-6));
  Cache C(1 << 20);
  Counters K;
  Options O;
  O.MinIdleSec = 0.001;
  Prefetcher Pf(G, C, Src, K, O);
  Pf.setRacyWindow(0); // the file was just written (its ctime is now)
  Pf.start(Label::start(0, 1).key());
  Pf.drain(); // "a" is predicted from the start vertex and read
  Pf.accessed(readOf("a").key());
  Pf.drain();
  for (int V = 0; V < 4; ++V) {
    std::shared_ptr<Entry> E;
    ASSERT_EQ(C.find(Sig.Id, V, Box{{0}, {Part}, {1}}, E), Cache::Found::Hit) << V;
    EXPECT_EQ(bytesOf(E), fileBytes(P, V * Part, Part));
    EXPECT_EQ(E->Sig, Sig);
  }
  Pf.stop();
  EXPECT_EQ(K.Predictions.load(), 4u); // a (from the start vertex), b, c, d
  EXPECT_EQ(K.NextPredicted.load(), 1u);
  EXPECT_EQ(K.NextCorrect.load(), 1u);
}

TEST(Prefetcher, NothingIsReadWithoutIdleTimeOrInDryRun) {
  Scratch T;
  std::string P = makeFile(T, 3);
  FileSig Sig;
  ASSERT_TRUE(statFile(P, Sig));
  FileSource Src(P, Sig.Id);
  Graph G;
  G.merge(runOf({"a", "b", "c"}, 0.0001, 0.01)); // pure I/O: no compute between reads
  Cache C(1 << 20);
  Counters K;
  Options O; // MinIdle 2 ms
  {
    Prefetcher Pf(G, C, Src, K, O);
    Pf.start(Label::start(0, 1).key());
    Pf.accessed(readOf("a").key());
    Pf.drain();
  }
  EXPECT_EQ(K.Predictions.load(), 0u);
  EXPECT_EQ(C.entries(), 0u);
  Graph G2;
  G2.merge(runOf({"a", "b", "c"}, 0.05, 0.01));
  O.DryRun = true;
  {
    Prefetcher Pf(G2, C, Src, K, O);
    Pf.start(Label::start(0, 1).key());
    Pf.drain();
    Pf.accessed(readOf("a").key());
    Pf.drain();
  }
  EXPECT_EQ(K.Predictions.load(), 3u); // scheduled as usual...
  EXPECT_EQ(C.entries(), 0u);          // ...but nothing read
  EXPECT_EQ(K.PrefetchReads.load(), 0u);
}

TEST(Prefetcher, ReadsNothingBetweenAccessesThatFollowEachOtherClosely) {
  Scratch T;
  std::string P = makeFile(T, 3);
  FileSig Sig;
  ASSERT_TRUE(statFile(P, Sig));
  FileSource Src(P, Sig.Id);
  Graph G;
  // 1 s between the accesses, less than IOPOLY_KNOWAC_MIN_IDLE=5s here (the
  // program would be late only after 6 s: no timing in this test).
  G.merge(runOf({"a", "b", "c"}, 1.0, 0.01));
  Cache C(1 << 20);
  Counters K;
  Options O;
  O.MinIdleSec = 5.0;
  Prefetcher Pf(G, C, Src, K, O);
  Pf.setRacyWindow(0);
  C.setWaitHook([&](bool W) { Pf.mainWaiting(W); });
  Pf.start(Label::start(0, 1).key());
  Pf.drain();
  Pf.accessed(readOf("a").key());
  Pf.drain();
  // Nothing registered, nothing read: the program's get of "b" is its own.
  std::shared_ptr<Entry> E;
  EXPECT_EQ(C.find(Sig.Id, 1, Box{{0}, {Part}, {1}}, E), Cache::Found::Miss);
  Pf.accessed(readOf("b").key());
  Pf.drain();
  Pf.stop();
  EXPECT_EQ(K.PrefetchReads.load(), 0u);
  EXPECT_EQ(K.Predictions.load(), 0u);
  EXPECT_EQ(C.entries(), 0u);
}

TEST(Prefetcher, ReadsOnWhenTheMainThreadComputesFarLongerThanPredicted) {
  Scratch T;
  std::string P = makeFile(T, 3);
  FileSig Sig;
  ASSERT_TRUE(statFile(P, Sig));
  FileSource Src(P, Sig.Id);
  Graph G;
  // 1 ms predicted before each read: no idle time to use, unless the
  // program turns out to compute (idle 1 + 2 ms and longer).
  G.merge(runOf({"a", "b", "c"}, 0.001, 0.01));
  Cache C(1 << 20);
  Counters K;
  Options O; // MIN_IDLE 2 ms
  Prefetcher Pf(G, C, Src, K, O);
  Pf.setRacyWindow(0);
  Pf.start(Label::start(0, 1).key());
  Pf.drain();
  Pf.accessed(readOf("a").key());
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the program computes on
  Pf.drain();
  std::shared_ptr<Entry> E;
  ASSERT_EQ(C.find(Sig.Id, 1, Box{{0}, {Part}, {1}}, E), Cache::Found::Hit);
  EXPECT_EQ(bytesOf(E), fileBytes(P, Part, Part));
  Pf.stop();
}

TEST(Prefetcher, AFileChangedWithinTheLastSecondIsNotTrusted) {
  // Another process could change it again within the same time stamp.
  Scratch T;
  std::string P = makeFile(T, 2); // its ctime is now
  FileSig Sig;
  ASSERT_TRUE(statFile(P, Sig));
  FileSource Src(P, Sig.Id);
  Graph G;
  G.merge(runOf({"a", "b"}, 0.05, 1e-6));
  Cache C(1 << 20);
  Counters K;
  Options O;
  Prefetcher Pf(G, C, Src, K, O);
  Pf.start(Label::start(0, 1).key());
  Pf.drain();
  Pf.stop();
  EXPECT_EQ(K.Predictions.load(), 2u);
  EXPECT_EQ(K.RacyDrops.load(), 2u);
  EXPECT_EQ(C.entries(), 0u);
  EXPECT_EQ(C.wastedBytes(), uint64_t(2 * Part));
}

TEST(Prefetcher, ServedDataIsNeverOlderThanTheFile) {
  Scratch T;
  const int Vars = 6;
  std::string P = makeFile(T, Vars);
  FileSig Sig;
  ASSERT_TRUE(statFile(P, Sig));
  FileSource Src(P, Sig.Id);
  Graph G;
  std::vector<std::string> Names;
  for (int V = 0; V < Vars; ++V)
    Names.push_back(std::string(1, char('a' + V)));
  G.merge(runOf(Names, 0.05, 1e-6));
  Cache C(size_t(Part) * 3); // room for half of them: eviction happens too
  Counters K;
  Options O;
  O.MinIdleSec = 0;
  Prefetcher Pf(G, C, Src, K, O);
  Pf.setRacyWindow(0); // every write below goes through the guard
  Pf.start(Label::start(0, 1).key());

  int Fd = ::open(P.c_str(), O_WRONLY);
  ASSERT_GE(Fd, 0);
  std::mt19937 Rng(42);
  int Hits = 0;
  for (int Iter = 0; Iter < 3000; ++Iter) {
    int V = int(Rng() % Vars);
    Box B{{0}, {Part}, {1}};
    if (Rng() % 3 == 0) {
      // A write of the main thread, as Session::beginPut/endPut do it.
      Src.Guard->Writes.fetch_add(1);
      Src.Guard->Gen.fetch_add(1);
      C.invalidate(Sig.Id, V, &B);
      Pf.mainIo(true);
      std::vector<unsigned char> New(size_t(Part), (unsigned char)(Iter & 0xff));
      ASSERT_EQ(::pwrite(Fd, New.data(), New.size(), V * Part), ssize_t(Part));
      Pf.mainIo(false);
      Src.Guard->Gen.fetch_add(1);
      Src.Guard->Writes.fetch_sub(1);
    } else {
      std::shared_ptr<Entry> E;
      if (C.find(Sig.Id, V, B, E) == Cache::Found::Hit) {
        ++Hits;
        ASSERT_EQ(bytesOf(E), fileBytes(P, V * Part, Part)) << "stale copy of variable " << V << " at " << Iter;
        C.served(E);
      }
    }
    Pf.accessed(readOf(Names[size_t(V)]).key());
    if (Rng() % 8 == 0)
      Pf.drain(); // now and then let the helper catch up; otherwise race
  }
  ::close(Fd);
  Pf.stop();
  EXPECT_GT(Hits, 0); // the test saw the cache serve
  EXPECT_LE(C.used(), C.capacity());
}
