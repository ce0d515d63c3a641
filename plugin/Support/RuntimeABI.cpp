//===- RuntimeABI.cpp - IR declarations of the runtime entry points --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/RuntimeABI.h"

using namespace llvm;

namespace iopoly {

static FunctionCallee declare(Module &M, StringRef Name, FunctionType *T, bool NoCaptureArg0) {
  FunctionCallee C = M.getOrInsertFunction(Name, T);
  if (auto *F = dyn_cast<Function>(C.getCallee())) {
    F->setDoesNotThrow();
    if (NoCaptureArg0)
      F->addParamAttr(0, Attribute::NoCapture);
  }
  return C;
}

RuntimeABI::RuntimeABI(Module &M) {
  LLVMContext &C = M.getContext();
  Type *I64 = Type::getInt64Ty(C), *I32 = Type::getInt32Ty(C), *Ptr = PointerType::getUnqual(C);
  Type *VoidTy = Type::getVoidTy(C);
  Window = StructType::getTypeByName(C, "struct.iopoly_window");
  if (!Window) {
    // The C struct aligns its bounce buffer to 64 bytes; an IR byte array
    // does not, so the gap before it is spelled out.
    constexpr uint64_t FlagsEnd = offsetof(iopoly_window, flags) + sizeof(uint32_t);
    constexpr uint64_t Gap = offsetof(iopoly_window, bounce) - FlagsEnd;
    static_assert(sizeof(iopoly_window) == offsetof(iopoly_window, bounce) + IOPOLY_MAX_ACCESS,
                  "the window ends with its bounce buffer");
    Type *Bytes = Type::getInt8Ty(C);
    Window = StructType::create(C,
                                {I64, I64, I64, Ptr, I64, I64, Ptr, Ptr, I64, I32, I32, I32, ArrayType::get(Bytes, Gap),
                                 ArrayType::get(Bytes, IOPOLY_MAX_ACCESS)},
                                "struct.iopoly_window");
  }
  Translate = declare(M, "__iopoly_translate", FunctionType::get(Ptr, {Ptr, Ptr, I64, I32}, false), true);
  Commit = declare(M, "__iopoly_commit", FunctionType::get(VoidTy, {Ptr}, false), true);
  WindowRelease = declare(M, "__iopoly_window_release", FunctionType::get(VoidTy, {Ptr}, false), true);
  GlobalInit = declare(M, "__iopoly_global_init", FunctionType::get(VoidTy, {Ptr, I64, Ptr, Ptr}, false), false);
  CheckStriping = declare(M, "__iopoly_check_striping", FunctionType::get(VoidTy, {I64, I64, Ptr}, false), false);
  Memset = declare(M, "__iopoly_memset", FunctionType::get(VoidTy, {Ptr, I32, I64}, false), false);
  Memcpy = declare(M, "__iopoly_memcpy", FunctionType::get(VoidTy, {Ptr, Ptr, I64}, false), false);
  Memmove = declare(M, "__iopoly_memmove", FunctionType::get(VoidTy, {Ptr, Ptr, I64}, false), false);
}

AllocaInst *RuntimeABI::createWindow(Function &F, bool Pinned) const {
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *W = B.CreateAlloca(Window, nullptr, "iopoly.win");
  W->setAlignment(Align(64));
  B.SetInsertPoint(W->getNextNode());
  B.CreateStore(B.getInt64(0), B.CreateStructGEP(Window, W, FieldLimit));
  B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), B.CreateStructGEP(Window, W, FieldArray));
  B.CreateStore(B.getInt32(0), B.CreateStructGEP(Window, W, FieldBounceLen));
  B.CreateStore(B.getInt32(Pinned ? IOPOLY_WINDOW_PINNED : 0), B.CreateStructGEP(Window, W, FieldFlags));
  return W;
}

Value *RuntimeABI::loadField(IRBuilderBase &B, Value *W, unsigned Field, const Twine &Name) const {
  return B.CreateLoad(B.getInt64Ty(), B.CreateStructGEP(Window, W, Field), Name);
}

Function *getOrCreateMarker(Module &M) {
  if (Function *F = findMarker(M))
    return F;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C);
  Function *F = Function::Create(FunctionType::get(Ptr, {Ptr}, false), GlobalValue::ExternalLinkage, MarkerName, M);
  F->setDoesNotAccessMemory();
  F->setDoesNotThrow();
  F->setWillReturn();
  F->addFnAttr(Attribute::NoSync);
  F->addFnAttr(Attribute::NoFree);
  return F;
}

Function *findMarker(const Module &M) { return M.getFunction(MarkerName); }

} // namespace iopoly
