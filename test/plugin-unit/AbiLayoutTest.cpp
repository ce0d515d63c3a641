//===- AbiLayoutTest.cpp - The plugin's window type against iopoly/abi.h --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Lowered code and the runtime share struct iopoly_window and struct
// iopoly_site through memory: the plugin builds them as IR structs, the
// runtime compiles the C header. Every field's offset, and the size, must
// agree, or the runtime writes past the windows the compiled code
// allocated (or reads garbage as a source location).
//
//===----------------------------------------------------------------------===//
#include "Support/RuntimeABI.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace {

// The data layout of the machine the test runs on, as clang would use it.
#if defined(__x86_64__)
constexpr const char *HostLayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";
#elif defined(__aarch64__)
constexpr const char *HostLayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128";
#else
#error "add this machine's data layout"
#endif

struct Field {
  unsigned Index;
  uint64_t Offset;
  const char *Name;
};

void expectLayout(Module &M, StructType *T, ArrayRef<Field> Fields, unsigned NumFields, size_t Size) {
  const StructLayout *SL = M.getDataLayout().getStructLayout(T);
  ASSERT_EQ(T->getNumElements(), NumFields);
  for (const Field &F : Fields)
    EXPECT_EQ(SL->getElementOffset(F.Index), F.Offset) << "field " << F.Name;
  EXPECT_EQ(SL->getSizeInBytes(), Size);
}

TEST(AbiLayout, WindowFieldsMatchTheHeader) {
  LLVMContext C;
  Module M("abi", C);
  M.setDataLayout(HostLayout);
  iopoly::RuntimeABI ABI(M);
  using R = iopoly::RuntimeABI;
  Field Fields[] = {
      {R::FieldLo, offsetof(iopoly_window, lo), "lo"},
      {R::FieldLimit, offsetof(iopoly_window, limit), "limit"},
      {R::FieldDelta, offsetof(iopoly_window, delta), "delta"},
      {R::FieldArray, offsetof(iopoly_window, array), "array"},
      {R::FieldStripe, offsetof(iopoly_window, stripe), "stripe"},
      {R::FieldRun, offsetof(iopoly_window, run), "run"},
      {R::FieldNext, offsetof(iopoly_window, next), "next"},
      {R::FieldPrev, offsetof(iopoly_window, prev), "prev"},
      {R::FieldFlags, offsetof(iopoly_window, flags), "flags"},
      {R::FieldReserved, offsetof(iopoly_window, reserved), "reserved"},
  };
  expectLayout(M, ABI.Window, Fields, R::NumFields, sizeof(iopoly_window));
  // A table of windows is an array of them: consecutive, no padding.
  EXPECT_EQ(M.getDataLayout().getTypeAllocSize(ArrayType::get(ABI.Window, 3)), 3 * sizeof(iopoly_window));
}

TEST(AbiLayout, SiteFieldsMatchTheHeader) {
  LLVMContext C;
  Module M("abi", C);
  M.setDataLayout(HostLayout);
  iopoly::RuntimeABI ABI(M);
  using R = iopoly::RuntimeABI;
  Field Fields[] = {
      {R::SiteFile, offsetof(iopoly_site, file), "file"},
      {R::SiteFunction, offsetof(iopoly_site, function), "function"},
      {R::SiteLine, offsetof(iopoly_site, line), "line"},
      {R::SiteColumn, offsetof(iopoly_site, column), "column"},
      {R::SiteStride, offsetof(iopoly_site, stride), "stride"},
  };
  expectLayout(M, ABI.Site, Fields, R::NumSiteFields, sizeof(iopoly_site));
}

TEST(AbiLayout, ConstantsComeFromTheHeader) {
  EXPECT_EQ(iopoly::MaxInlineAccess, uint64_t(IOPOLY_MAX_ACCESS));
  EXPECT_EQ(iopoly::MaxWindows, unsigned(IOPOLY_MAX_WINDOWS));
  EXPECT_EQ(iopoly::ModeRead, IOPOLY_READ);
  EXPECT_EQ(iopoly::ModeWrite, IOPOLY_WRITE);
}

} // namespace
