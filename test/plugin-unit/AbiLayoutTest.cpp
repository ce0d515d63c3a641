//===- AbiLayoutTest.cpp - The plugin's window type against iopoly/abi.h --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Lowered code and the runtime share struct iopoly_window through memory:
// the plugin builds it as an IR struct, the runtime compiles the C header.
// Every field's offset, and the size, must agree, or the runtime writes
// past the window the compiled code allocated.
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

TEST(AbiLayout, WindowFieldsMatchTheHeader) {
  LLVMContext C;
  Module M("abi", C);
  M.setDataLayout(HostLayout);
  iopoly::RuntimeABI ABI(M);
  const StructLayout *SL = M.getDataLayout().getStructLayout(ABI.Window);
  using R = iopoly::RuntimeABI;
  struct Field {
    unsigned Index;
    uint64_t Offset;
    const char *Name;
  } Fields[] = {
      {R::FieldLo, offsetof(iopoly_window, lo), "lo"},
      {R::FieldLimit, offsetof(iopoly_window, limit), "limit"},
      {R::FieldDelta, offsetof(iopoly_window, delta), "delta"},
      {R::FieldArray, offsetof(iopoly_window, array), "array"},
      {R::FieldStripe, offsetof(iopoly_window, stripe), "stripe"},
      {R::FieldRun, offsetof(iopoly_window, run), "run"},
      {R::FieldNext, offsetof(iopoly_window, next), "next"},
      {R::FieldPrev, offsetof(iopoly_window, prev), "prev"},
      {R::FieldBounceAddr, offsetof(iopoly_window, bounce_addr), "bounce_addr"},
      {R::FieldBounceLen, offsetof(iopoly_window, bounce_len), "bounce_len"},
      {R::FieldMode, offsetof(iopoly_window, mode), "mode"},
      {R::FieldFlags, offsetof(iopoly_window, flags), "flags"},
      {R::FieldBounce, offsetof(iopoly_window, bounce), "bounce"},
  };
  ASSERT_EQ(ABI.Window->getNumElements(), static_cast<unsigned>(R::NumFields));
  for (const Field &F : Fields)
    EXPECT_EQ(SL->getElementOffset(F.Index), F.Offset) << "field " << F.Name;
  EXPECT_GE(SL->getSizeInBytes(), sizeof(iopoly_window));
  EXPECT_EQ(alignTo(SL->getSizeInBytes(), 64), sizeof(iopoly_window));
}

TEST(AbiLayout, ConstantsComeFromTheHeader) {
  EXPECT_EQ(iopoly::MaxInlineAccess, uint64_t(IOPOLY_MAX_ACCESS));
  EXPECT_EQ(iopoly::ModeRead, IOPOLY_READ);
  EXPECT_EQ(iopoly::ModeWrite, IOPOLY_WRITE);
}

} // namespace
