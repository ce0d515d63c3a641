//===- TileTableLayoutTest.cpp - The version table's IR types vs the header -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Restructured code hands the runtime a table of its versions (struct
// iopoly_tile_table of include/iopoly/tiling.h) built as IR constants by
// plugin/Support/VersionTable.cpp. Every field's offset and every struct's
// size must be what the C header says, or the runtime reads the footprint
// models (and so chooses the version) from the wrong bytes.
//
//===----------------------------------------------------------------------===//
#include "Support/VersionTable.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <cstddef>

using namespace llvm;

namespace {

#if defined(__x86_64__)
constexpr const char *HostLayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";
#elif defined(__aarch64__)
constexpr const char *HostLayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128";
#else
#error "add this machine's data layout"
#endif

void expectOffsets(const DataLayout &DL, StructType *T, std::initializer_list<uint64_t> Offsets, size_t Size) {
  const StructLayout *SL = DL.getStructLayout(T);
  ASSERT_EQ(T->getNumElements(), Offsets.size());
  unsigned K = 0;
  for (uint64_t O : Offsets) {
    EXPECT_EQ(SL->getElementOffset(K), O) << "field " << K;
    ++K;
  }
  EXPECT_EQ(SL->getSizeInBytes(), Size);
}

TEST(TileTableLayout, EveryStructMatchesTheHeader) {
  LLVMContext C;
  Module M("tiles", C);
  M.setDataLayout(HostLayout);
  const DataLayout &DL = M.getDataLayout();
  iopoly::VersionTableTypes Ty(C);
  expectOffsets(DL, Ty.Term,
                {offsetof(iopoly_tile_term, span), offsetof(iopoly_tile_term, runs), offsetof(iopoly_tile_term, run),
                 offsetof(iopoly_tile_term, window), offsetof(iopoly_tile_term, total),
                 offsetof(iopoly_tile_term, tiles), offsetof(iopoly_tile_term, group),
                 offsetof(iopoly_tile_term, flags), offsetof(iopoly_tile_term, array)},
                sizeof(iopoly_tile_term));
  expectOffsets(DL, Ty.Version,
                {offsetof(iopoly_tile_version, unit), offsetof(iopoly_tile_version, first),
                 offsetof(iopoly_tile_version, count), offsetof(iopoly_tile_version, model_first),
                 offsetof(iopoly_tile_version, model_count), offsetof(iopoly_tile_version, flags),
                 offsetof(iopoly_tile_version, reserved)},
                sizeof(iopoly_tile_version));
  expectOffsets(DL, Ty.Band,
                {offsetof(iopoly_band, count), offsetof(iopoly_band, dims), offsetof(iopoly_band, nest),
                 offsetof(iopoly_band, lo_step), offsetof(iopoly_band, hi_step), offsetof(iopoly_band, lo_first),
                 offsetof(iopoly_band, hi_first), offsetof(iopoly_band, flags), offsetof(iopoly_band, reserved)},
                sizeof(iopoly_band));
  expectOffsets(DL, Ty.BandTerm,
                {offsetof(iopoly_band_term, base), offsetof(iopoly_band_term, step),
                 offsetof(iopoly_band_term, from), offsetof(iopoly_band_term, upto),
                 offsetof(iopoly_band_term, outer), offsetof(iopoly_band_term, outer_pitch),
                 offsetof(iopoly_band_term, inner), offsetof(iopoly_band_term, inner_pitch),
                 offsetof(iopoly_band_term, run), offsetof(iopoly_band_term, bytes),
                 offsetof(iopoly_band_term, inner_step), offsetof(iopoly_band_term, run_step),
                 offsetof(iopoly_band_term, inner_first), offsetof(iopoly_band_term, run_first),
                 offsetof(iopoly_band_term, band), offsetof(iopoly_band_term, array),
                 offsetof(iopoly_band_term, flags)},
                sizeof(iopoly_band_term));
  expectOffsets(DL, Ty.Table,
                {offsetof(iopoly_tile_table, abi), offsetof(iopoly_tile_table, num_versions),
                 offsetof(iopoly_tile_table, versions), offsetof(iopoly_tile_table, terms),
                 offsetof(iopoly_tile_table, where), offsetof(iopoly_tile_table, chosen),
                 offsetof(iopoly_tile_table, flags), offsetof(iopoly_tile_table, bands),
                 offsetof(iopoly_tile_table, band_terms)},
                sizeof(iopoly_tile_table));
}

TEST(TileTableLayout, AddedVersionsPointAtTheirOwnModels) {
  iopoly::VersionSet Set;
  iopoly_band B{};
  B.dims = 1;
  B.count[0] = 4;
  iopoly_band_term T{};
  T.band = 0;
  Set.addVersion(4096, 0, {}, {B}, {T});
  Set.addVersion(8, IOPOLY_VERSION_BANDS, {}, {B, B}, {T, T});
  Set.addVersion(0, 0, {}, {}, {});
  ASSERT_EQ(Set.Versions.size(), 3u);
  EXPECT_EQ(Set.Versions[1].model_first, 1u);
  EXPECT_EQ(Set.Versions[1].model_count, 2u);
  // Band indices are rebased onto the table's bands.
  EXPECT_EQ(Set.BandTerms[1].band, 1u);
  EXPECT_EQ(Set.Versions[2].model_count, 0u);
  iopoly_tile_table Tab = Set.table();
  EXPECT_EQ(Tab.num_versions, 3u);
  EXPECT_EQ(Tab.abi, unsigned(IOPOLY_TILE_ABI));
}

} // namespace
