//===- ArenaTest.cpp - iopoly_alloc addresses and the access guard --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Addresses handed out for disk-resident memory map back to their array
// (iopoly_array_of), ordinary pointers map to nothing, released ranges stop
// mapping, every array has a guard gap before it, and touching memory that
// no running runtime can serve stops the program with a message naming the
// array instead of corrupting anything (ApiFaultTest.cpp: the page-fault
// service of a running program).
//
//===----------------------------------------------------------------------===//
#include "memory/Arena.h"
#include "core/Array.h"

#include "iopoly.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sys/mman.h>

using namespace iopoly;

namespace {

std::unique_ptr<iopoly_array> fakeArray(const std::string &Name, size_t Bytes) {
  Geometry G;
  size_t Dims[1] = {Bytes};
  EXPECT_TRUE(Geometry::make(1, 1, Dims, nullptr, 4096, 1, G).ok());
  auto A = std::make_unique<iopoly_array>(G);
  A->Name = Name;
  return A;
}

/// Reserves and releases an arena range for one test.
struct Reserved {
  Reserved(iopoly_array &A, size_t Bytes) : Bytes(Bytes) {
    Status S = arenaReserve(&A, Bytes, Base);
    EXPECT_TRUE(S.ok()) << S.message();
    A.AllocBase = Base;
  }
  ~Reserved() {
    if (Base)
      arenaRelease(Base, Bytes);
  }
  size_t Bytes;
  void *Base = nullptr;
};

/// Matches a death message that does not contain \p Part (gtest without
/// gmock has no Not(HasSubstr(...))).
class LacksText : public testing::MatcherInterface<const std::string &> {
public:
  explicit LacksText(std::string Part) : Part(std::move(Part)) {}
  bool MatchAndExplain(const std::string &S, testing::MatchResultListener *) const override {
    return S.find(Part) == std::string::npos;
  }
  void DescribeTo(std::ostream *OS) const override { *OS << "does not contain \"" << Part << "\""; }

private:
  std::string Part;
};

testing::Matcher<const std::string &> lacks(const std::string &Part) {
  return testing::MakeMatcher(new LacksText(Part));
}

} // namespace

TEST(Arena, ArenaPointersMapToTheirArray) {
  auto A = fakeArray("first", 3000);
  auto B = fakeArray("second", (size_t(1) << 30) + 5); // spans two granules
  Reserved RA(*A, 3000), RB(*B, B->Geo.TotalBytes);
  ASSERT_NE(nullptr, RA.Base);
  ASSERT_NE(nullptr, RB.Base);
  char *PA = static_cast<char *>(RA.Base), *PB = static_cast<char *>(RB.Base);
  EXPECT_EQ(A.get(), iopoly_array_of(PA));
  EXPECT_EQ(A.get(), iopoly_array_of(PA + 2999));
  EXPECT_EQ(B.get(), iopoly_array_of(PB));
  EXPECT_EQ(B.get(), iopoly_array_of(PB + (size_t(1) << 30)));
  EXPECT_EQ(B.get(), iopoly_array_of(PB + (size_t(1) << 30) + 4));
  EXPECT_NE(PA, PB);
  // Ranges do not overlap and a guard granule that belongs to no array
  // lies before each: A[-1] never reaches another array.
  uintptr_t GA = reinterpret_cast<uintptr_t>(PA) >> ArenaGranuleShift;
  uintptr_t GB = reinterpret_cast<uintptr_t>(PB) >> ArenaGranuleShift;
  EXPECT_TRUE(GB > GA + 1 || GB + 3 <= GA);
  EXPECT_EQ(nullptr, iopoly_array_of(PA - 1));
  EXPECT_EQ(nullptr, iopoly_array_of(PB - 1));
  size_t Off = 0;
  std::string Why;
  EXPECT_EQ(nullptr, arenaResolve(reinterpret_cast<uintptr_t>(PB) - 8, 8, Off, Why));
  EXPECT_NE(std::string::npos, Why.find("8 bytes before the start of disk-resident array 'second'")) << Why;
  EXPECT_EQ(nullptr, arenaResolve(reinterpret_cast<uintptr_t>(PA) + 3000, 1, Off, Why));
  EXPECT_NE(std::string::npos, Why.find("byte 3000 of disk-resident array 'first' (3000 bytes): past its end")) << Why;
  EXPECT_EQ(A.get(), arenaResolve(reinterpret_cast<uintptr_t>(PA) + 2992, 8, Off, Why));
  EXPECT_EQ(2992u, Off);
}

TEST(Arena, ExactGranuleArraysStillHaveAGapBetweenThem) {
  size_t G = size_t(1) << ArenaGranuleShift;
  auto A = fakeArray("lower", G), B = fakeArray("upper", G);
  Reserved RA(*A, G), RB(*B, G);
  char *PA = static_cast<char *>(RA.Base), *PB = static_cast<char *>(RB.Base);
  ASSERT_TRUE(PA && PB);
  char *Lo = PA < PB ? PA : PB;
  iopoly_array *LoA = PA < PB ? A.get() : B.get();
  // One byte past the end of the lower array is not the upper one.
  EXPECT_EQ(nullptr, iopoly_array_of(Lo + G));
  size_t Off = 0;
  std::string Why;
  EXPECT_EQ(nullptr, arenaResolve(reinterpret_cast<uintptr_t>(Lo + G), 1, Off, Why));
  EXPECT_NE(std::string::npos, Why.find("'" + LoA->Name + "'")) << Why;
  EXPECT_NE(std::string::npos, Why.find("past its end")) << Why;
}

TEST(Arena, AnIndexFarOutOfBoundsNamesEveryArrayItMayBelongTo) {
  size_t G = size_t(1) << ArenaGranuleShift;
  auto A = fakeArray("far_a", 8000), B = fakeArray("far_b", 8000);
  Reserved RA(*A, 8000), RB(*B, 8000);
  uintptr_t PA = reinterpret_cast<uintptr_t>(RA.Base), PB = reinterpret_cast<uintptr_t>(RB.Base);
  ASSERT_TRUE(PA && PB);
  uintptr_t Lo = std::min(PA, PB), Hi = std::max(PA, PB);
  std::string LoName = Lo == PA ? "far_a" : "far_b", HiName = Lo == PA ? "far_b" : "far_a";
  size_t Off = 0;
  std::string Why;
  // Far past both: the address is about as far from either array.
  uintptr_t P = Hi + 8 * G;
  ASSERT_LT(P - iopoly_arena_base_, iopoly_arena_size_) << "the arena is too small for this test";
  EXPECT_EQ(nullptr, arenaResolve(P, 8, Off, Why));
  EXPECT_NE(std::string::npos, Why.find(format("bytes %zu..%zu of disk-resident array '%s' (8000 bytes): past its end",
                                               static_cast<size_t>(P - Lo), static_cast<size_t>(P - Lo + 7),
                                               LoName.c_str())))
      << Why;
  EXPECT_NE(std::string::npos, Why.find("'" + HiName + "'")) << Why;
  EXPECT_NE(std::string::npos, Why.find("the address alone does not say which array was meant")) << Why;
  // Just before the upper one: only it is named.
  EXPECT_EQ(nullptr, arenaResolve(Hi - 8, 8, Off, Why));
  EXPECT_EQ("8 bytes before the start of disk-resident array '" + HiName + "' (8000 bytes) (a negative index)", Why);
}

TEST(Arena, TheLowestArrayHasRoomBelowItInTheArena) {
  // A large negative index must stay in the arena (reported), not reach
  // what the kernel maps just below it.
  auto A = fakeArray("lowest", 4096);
  Reserved R(*A, 4096);
  uintptr_t P = reinterpret_cast<uintptr_t>(R.Base);
  size_t Margin = iopoly_arena_size_ / 64;
  ASSERT_GE(P - iopoly_arena_base_, Margin);
  size_t Off = 0;
  std::string Why;
  EXPECT_EQ(nullptr, arenaResolve(P - Margin, 8, Off, Why));
  EXPECT_EQ(format("%zu bytes before the start of disk-resident array 'lowest' (4096 bytes) (a negative index)",
                   Margin),
            Why);
}

TEST(Arena, GapsAroundArraysReachTheNeighboursBytes) {
  // What a strip driver maps for a probe that lands outside every array:
  // the whole stretch between the neighbours' bytes, never a byte of them.
  auto A = fakeArray("gap_a", 8000), B = fakeArray("gap_b", 8000);
  Reserved RA(*A, 8000), RB(*B, 8000);
  uintptr_t PA = reinterpret_cast<uintptr_t>(RA.Base), PB = reinterpret_cast<uintptr_t>(RB.Base);
  ASSERT_TRUE(PA && PB);
  uintptr_t Lo = std::min(PA, PB), Hi = std::max(PA, PB), GLo = 0, GHi = 0;
  EXPECT_FALSE(arenaGap(Lo, GLo, GHi)) << "inside an array";
  EXPECT_FALSE(arenaGap(Lo + 7999, GLo, GHi)) << "its last byte";
  EXPECT_FALSE(arenaGap(iopoly_arena_base_ - 1, GLo, GHi)) << "outside the arena";
  // Past the lower array's end and before the upper array's start.
  for (uintptr_t P : {Lo + 8000, Lo + 123456, Hi - 8, Hi - 1}) {
    ASSERT_TRUE(arenaGap(P, GLo, GHi)) << P - Lo;
    EXPECT_LE(GLo, P);
    EXPECT_LT(P, GHi);
    EXPECT_GE(GLo, Lo + 8000) << "never the lower array's bytes";
    EXPECT_LE(GHi, Hi) << "never the upper array's bytes";
  }
  // Granules apart, the gap is the whole stretch, or bounded by the scan.
  ASSERT_TRUE(arenaGap(Lo + 8000, GLo, GHi));
  EXPECT_EQ(Lo + 8000, GLo);
  if (((Hi - Lo) >> ArenaGranuleShift) <= 2)
    EXPECT_EQ(Hi, GHi);
  // Below the lowest array.
  ASSERT_TRUE(arenaGap(Lo - 8, GLo, GHi));
  EXPECT_EQ(Lo, GHi);
  EXPECT_LT(GLo, Lo - 8 + 1);
}

TEST(Arena, OrdinaryPointersMapToNothing) {
  auto A = fakeArray("some", 100);
  Reserved R(*A, 100); // makes sure the arena exists
  int Local = 0;
  std::unique_ptr<char[]> Heap(new char[16]);
  static int Global;
  EXPECT_EQ(nullptr, iopoly_array_of(&Local));
  EXPECT_EQ(nullptr, iopoly_array_of(Heap.get()));
  EXPECT_EQ(nullptr, iopoly_array_of(&Global));
  EXPECT_EQ(nullptr, iopoly_array_of(nullptr));
  EXPECT_EQ(nullptr, iopoly_array_of(reinterpret_cast<void *>(iopoly_arena_base_ - 1)));
  EXPECT_EQ(nullptr, iopoly_array_of(reinterpret_cast<void *>(iopoly_arena_base_ + iopoly_arena_size_)));
}

TEST(Arena, ReleasedRangesStopMappingAndAreReused) {
  auto A = fakeArray("gone", 4096);
  void *First = nullptr;
  {
    Reserved R(*A, 4096);
    First = R.Base;
    EXPECT_EQ(A.get(), iopoly_array_of(First));
  }
  EXPECT_EQ(nullptr, iopoly_array_of(First));
  auto B = fakeArray("next", 4096);
  Reserved R(*B, 4096);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(First) >> ArenaGranuleShift,
            reinterpret_cast<uintptr_t>(R.Base) >> ArenaGranuleShift)
      << "the first free granule is reused";
  EXPECT_EQ(B.get(), iopoly_array_of(R.Base));
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(R.Base) % 4096) << "page-aligned, for the views of its stripes";
}

TEST(Arena, ArraysStartAtDifferentOffsetsInTheirGranules) {
  // Element i of two arrays must not share the low address bits that cache
  // way predictors hash (both arrays would miss at every access).
  auto A = fakeArray("colour_a", 8192), B = fakeArray("colour_b", 8192);
  Reserved RA(*A, 8192), RB(*B, 8192);
  size_t Mask = (size_t(1) << ArenaGranuleShift) - 1;
  EXPECT_NE(reinterpret_cast<uintptr_t>(RA.Base) & Mask, reinterpret_cast<uintptr_t>(RB.Base) & Mask);
}

TEST(ArenaDeathTest, DirectAccessStopsWithTheArrayName) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto A = fakeArray("matrix_A", 1 << 20);
  Reserved R(*A, 1 << 20);
  volatile char *P = static_cast<char *>(R.Base);
  // No runtime owns these fake arrays: the fault service cannot serve them.
  EXPECT_DEATH(P[12345] = 1, "disk-resident array 'matrix_A' \\(byte 12345 of 1048576\\)");
  EXPECT_DEATH((void)P[0], "disk-resident array 'matrix_A'.*iopoly plugin");
}

TEST(ArenaDeathTest, OrdinaryCrashesStillCrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto A = fakeArray("bystander", 100);
  Reserved R(*A, 100); // installs the handler
  // A fault outside the arena is not attributed to any array.
  volatile char *Bad = reinterpret_cast<char *>(16);
  EXPECT_DEATH(*Bad = 1, lacks("disk-resident"));
}

TEST(ArenaDeathTest, AFaultJustOutsideTheArenaNamesTheAddressAndTheNearestArray) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto A = fakeArray("lowest", 4096);
  Reserved R(*A, 4096); // installs the handler
  // An unmapped page below the arena, as a negative index far out of
  // bounds reaches (the kernel's next mappings go just below the arena).
  uintptr_t Page = 0;
  for (uintptr_t K = 1; K <= 64 && !Page; ++K) {
    uintptr_t Try = iopoly_arena_base_ - (K << ArenaGranuleShift);
    void *M = ::mmap(reinterpret_cast<void *>(Try), 4096, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (M == reinterpret_cast<void *>(Try) && ::munmap(M, 4096) == 0)
      Page = Try;
    else if (M != MAP_FAILED)
      ::munmap(M, 4096);
  }
  ASSERT_NE(0u, Page) << "no unmapped page within 64 GiB below the arena";
  volatile char *Bad = reinterpret_cast<char *>(Page + 8);
  EXPECT_DEATH(*Bad = 1, "iopoly: fatal: segmentation fault at address 0x[0-9a-f]+, outside disk-resident memory "
                         "\\([0-9]+ bytes below it\\); nearest array: [0-9]+ bytes before the start of "
                         "disk-resident array 'lowest' \\(4096 bytes\\)");
}
