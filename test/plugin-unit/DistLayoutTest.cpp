//===- DistLayoutTest.cpp - The plugin's loop descriptor vs iopoly/dist.h -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime reads the descriptors the plugin emits for distributed loops
// (and writes their state field): every field's offset and the size must
// agree with the C header.
//
//===----------------------------------------------------------------------===//
#include "Support/DistABI.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <cstddef>

using namespace llvm;

TEST(DistLayout, LoopDescriptorMatchesTheHeader) {
  LLVMContext C;
  Module M("dist", C);
#if defined(__x86_64__)
  M.setDataLayout("e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128");
#elif defined(__aarch64__)
  M.setDataLayout("e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128");
#endif
  iopoly::DistABI ABI(M);
  const StructLayout *SL = M.getDataLayout().getStructLayout(ABI.Loop);
  using D = iopoly::DistABI;
  struct Field {
    unsigned Index;
    uint64_t Offset;
    const char *Name;
  } Fields[] = {
      {D::FieldVersion, offsetof(iopoly_dist_loop, version), "version"},
      {D::FieldMapping, offsetof(iopoly_dist_loop, mapping), "mapping"},
      {D::FieldLocal, offsetof(iopoly_dist_loop, local), "local"},
      {D::FieldLb, offsetof(iopoly_dist_loop, lb), "lb"},
      {D::FieldUb, offsetof(iopoly_dist_loop, ub), "ub"},
      {D::FieldStep, offsetof(iopoly_dist_loop, step), "step"},
      {D::FieldIterations, offsetof(iopoly_dist_loop, iterations), "iterations"},
      {D::FieldNChunks, offsetof(iopoly_dist_loop, nchunks), "nchunks"},
      {D::FieldNPieces, offsetof(iopoly_dist_loop, npieces), "npieces"},
      {D::FieldPieces, offsetof(iopoly_dist_loop, pieces), "pieces"},
      {D::FieldTagStart, offsetof(iopoly_dist_loop, tag_start), "tag_start"},
      {D::FieldTags, offsetof(iopoly_dist_loop, tags), "tags"},
      {D::FieldNData, offsetof(iopoly_dist_loop, ndata), "ndata"},
      {D::FieldBThres, offsetof(iopoly_dist_loop, bthres_permille), "bthres_permille"},
      {D::FieldAlpha, offsetof(iopoly_dist_loop, alpha_permille), "alpha_permille"},
      {D::FieldBeta, offsetof(iopoly_dist_loop, beta_permille), "beta_permille"},
      {D::FieldTopology, offsetof(iopoly_dist_loop, topology), "topology"},
      {D::FieldTableRanks, offsetof(iopoly_dist_loop, table_ranks), "table_ranks"},
      {D::FieldTableStart, offsetof(iopoly_dist_loop, table_start), "table_start"},
      {D::FieldTable, offsetof(iopoly_dist_loop, table), "table"},
      {D::FieldWhere, offsetof(iopoly_dist_loop, where), "where"},
      {D::FieldState, offsetof(iopoly_dist_loop, state), "state"},
  };
  ASSERT_EQ(static_cast<unsigned>(D::NumFields), ABI.Loop->getNumElements());
  for (const Field &F : Fields)
    EXPECT_EQ(F.Offset, SL->getElementOffset(F.Index)) << F.Name;
  EXPECT_EQ(sizeof(iopoly_dist_loop), SL->getSizeInBytes());
}
