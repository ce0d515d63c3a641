//===- RuntimeABI.cpp - IR declarations of the runtime entry points --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/RuntimeABI.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

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

RuntimeABI::RuntimeABI(Module &M) : M(M) {
  LLVMContext &C = M.getContext();
  Type *I64 = Type::getInt64Ty(C), *I32 = Type::getInt32Ty(C), *Ptr = PointerType::getUnqual(C);
  Type *VoidTy = Type::getVoidTy(C);
  Window = StructType::getTypeByName(C, "struct.iopoly_window");
  if (!Window) {
    static_assert(sizeof(iopoly_window) == offsetof(iopoly_window, reserved) + sizeof(uint32_t),
                  "the window ends with its reserved word (no tail padding to spell out)");
    Window = StructType::create(C, {I64, I64, I64, Ptr, I64, I64, Ptr, Ptr, I32, I32}, "struct.iopoly_window");
  }
  Site = StructType::getTypeByName(C, "struct.iopoly_site");
  if (!Site)
    Site = StructType::create(C, {Ptr, Ptr, I32, I32, I64}, "struct.iopoly_site");
  Translate = declare(M, "__iopoly_translate", FunctionType::get(Ptr, {Ptr, Ptr, I64, I32, Ptr}, false), true);
  Commit = declare(M, "__iopoly_commit", FunctionType::get(VoidTy, {}, false), false);
  WindowRelease = declare(M, "__iopoly_window_release", FunctionType::get(VoidTy, {Ptr}, false), true);
  GlobalInit =
      declare(M, "__iopoly_global_init", FunctionType::get(VoidTy, {Ptr, I64, I32, Ptr, Ptr, Ptr, Ptr}, false), false);
  AllocLayout = declare(M, "__iopoly_alloc_layout", FunctionType::get(VoidTy, {Ptr, I64, I32, Ptr, Ptr}, false), false);
  CheckStriping = declare(M, "__iopoly_check_striping", FunctionType::get(VoidTy, {I64, I64, Ptr}, false), false);
  Memset = declare(M, "__iopoly_memset", FunctionType::get(VoidTy, {Ptr, I32, I64}, false), false);
  Memcpy = declare(M, "__iopoly_memcpy", FunctionType::get(VoidTy, {Ptr, Ptr, I64}, false), false);
  Memmove = declare(M, "__iopoly_memmove", FunctionType::get(VoidTy, {Ptr, Ptr, I64}, false), false);
}

FunctionType *parallelRedirectType(LLVMContext &C, const ParallelRedirect &R) {
  Type *Ptr = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C), *I32 = Type::getInt32Ty(C);
  Type *VoidTy = Type::getVoidTy(C), *Bool = Type::getInt1Ty(C);
  StringRef N = R.Runtime;
  if (N == "__iopoly_par_start") // long is i64 on the LP64 targets the runtime supports
    return FunctionType::get(VoidTy, {Ptr, Ptr, I32, I64, I64, I64}, false);
  if (N == "__iopoly_par_next")
    return FunctionType::get(Bool, {Ptr, Ptr}, false);
  return FunctionType::get(VoidTy, {}, false);
}

AllocaInst *RuntimeABI::createWindows(Function &F, unsigned Count, bool Pinned, const Twine &Name) const {
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *T = B.CreateAlloca(ArrayType::get(Window, Count), nullptr, Name);
  T->setAlignment(Align(16));
  B.SetInsertPoint(T->getNextNode());
  for (unsigned K = 0; K < Count; ++K) {
    Value *W = window(B, T, K);
    B.CreateStore(B.getInt64(0), B.CreateStructGEP(Window, W, FieldLimit));
    B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), B.CreateStructGEP(Window, W, FieldArray));
    B.CreateStore(B.getInt32(Pinned ? IOPOLY_WINDOW_PINNED : 0), B.CreateStructGEP(Window, W, FieldFlags));
  }
  return T;
}

Value *RuntimeABI::window(IRBuilderBase &B, AllocaInst *Table, unsigned Index) const {
  return B.CreateConstInBoundsGEP2_32(Table->getAllocatedType(), Table, 0, Index, "iopoly.win");
}

Value *RuntimeABI::loadField(IRBuilderBase &B, Value *W, unsigned Field, const Twine &Name) const {
  return B.CreateLoad(B.getInt64Ty(), B.CreateStructGEP(Window, W, Field), Name);
}

void RuntimeABI::releaseIfHeld(IRBuilderBase &B, Value *W) const {
  Value *Held = B.CreateIsNotNull(B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(Window, W, FieldArray)));
  Instruction *Then = SplitBlockAndInsertIfThen(Held, &*B.GetInsertPoint(), /*Unreachable=*/false,
                                                MDBuilder(B.getContext()).createUnlikelyBranchWeights());
  IRBuilder<> TB(Then);
  TB.CreateCall(WindowRelease, {W});
  B.SetInsertPoint(Then->getParent()->getSingleSuccessor(), Then->getParent()->getSingleSuccessor()->begin());
}

Constant *RuntimeABI::site(Function &F, const DebugLoc &Loc, int64_t Stride) {
  std::string File = M.getSourceFileName(), Func = llvm::demangle(F.getName().str());
  unsigned Line = 0, Col = 0;
  if (DILocation *L = Loc.get()) {
    File = L->getFilename().str();
    Line = L->getLine();
    Col = L->getColumn();
    if (DISubprogram *SP = L->getScope()->getSubprogram())
      Func = SP->getName().str();
  }
  Constant *&C = Sites[{File, Line, Col, Func, Stride}];
  if (C)
    return C;
  LLVMContext &Ctx = M.getContext();
  auto Str = [&](const std::string &S, const char *Tag) -> Constant * {
    Constant *&G = Strings[S];
    if (!G) {
      Constant *Data = ConstantDataArray::getString(Ctx, S);
      auto *V = new GlobalVariable(M, Data->getType(), true, GlobalValue::PrivateLinkage, Data, Tag);
      V->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
      G = V;
    }
    return G;
  };
  Constant *Init = ConstantStruct::get(
      Site, {Str(File, "iopoly.site.file"), Str(Func, "iopoly.site.function"),
             ConstantInt::get(Type::getInt32Ty(Ctx), Line), ConstantInt::get(Type::getInt32Ty(Ctx), Col),
             ConstantInt::get(Type::getInt64Ty(Ctx), Stride)});
  C = new GlobalVariable(M, Site, true, GlobalValue::PrivateLinkage, Init, "iopoly.site");
  return C;
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
