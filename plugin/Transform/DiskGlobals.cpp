//===- DiskGlobals.cpp - Disk-resident global arrays -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/DiskGlobals.h"
#include "Transform/DiskGlobalRefs.h"
#include "Transform/FileLayout.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/RuntimeABI.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#define DEBUG_TYPE "iopoly"

using namespace llvm;

namespace iopoly {

/// Constructor priority: before user constructors (65535) and C++ static
/// initializers that might touch the arrays.
static constexpr int CtorPriority = 101;

static void removeFromUsedLists(Module &M, GlobalVariable *G) {
  for (const char *List : {"llvm.used", "llvm.compiler.used"}) {
    GlobalVariable *L = M.getGlobalVariable(List);
    if (!L || !L->hasInitializer())
      continue;
    auto *Init = dyn_cast<ConstantArray>(L->getInitializer());
    if (!Init)
      continue;
    SmallVector<Constant *, 8> Keep;
    for (Value *Op : Init->operands())
      if (Op->stripPointerCasts() != G)
        Keep.push_back(cast<Constant>(Op));
    if (Keep.size() == Init->getNumOperands())
      continue;
    L->eraseFromParent();
    if (!Keep.empty()) {
      auto *T = ArrayType::get(PointerType::getUnqual(M.getContext()), Keep.size());
      auto *NL = new GlobalVariable(M, T, false, GlobalValue::AppendingLinkage, ConstantArray::get(T, Keep), List);
      NL->setSection("llvm.metadata");
    }
  }
}

static void rewriteGlobal(Module &M, GlobalVariable *G, RuntimeABI &ABI) {
  LLVMContext &Ctx = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  std::string Name = G->getName().str();
  // The array's own name (the pragma's, C++ scopes as dots), not the symbol.
  std::string ArrayName = nameOfNode(G->getMetadata(DiskResidentMD));
  if (ArrayName.empty())
    ArrayName = Name;
  Type *Ptr = PointerType::getUnqual(Ctx);
  bool Defined = !G->isDeclaration();
  // A permuted array's slot names its layout: another file that declares
  // the array extern (and addresses it row-major) then fails to link
  // instead of reading elements transposed.
  std::string SlotName = Name + ".iopoly";
  for (unsigned P : layoutOf(*G))
    SlotName += "." + std::to_string(P);
  auto *Slot = new GlobalVariable(M, Ptr, /*isConstant=*/false,
                                  Defined ? G->getLinkage() : GlobalValue::ExternalLinkage,
                                  Defined ? ConstantPointerNull::get(cast<PointerType>(Ptr)) : nullptr,
                                  SlotName);
  Slot->setMetadata(SlotMD, MDNode::get(Ctx, MDString::get(Ctx, ArrayName)));
  Slot->setMetadata(DiskResidentMD, G->getMetadata(DiskResidentMD));

  if (Defined) {
    uint64_t Bytes = DL.getTypeAllocSize(G->getValueType());
    // The shape as declared (from the frontend), else from the IR type (a
    // nest of arrays), else bytes.
    ArrayShape Shape = shapeOfNode(G->getMetadata(DiskResidentMD));
    uint64_t Product = Shape.ElemSize;
    for (uint64_t D : Shape.Dims)
      Product *= D;
    if (!Shape.ElemSize || Product != Bytes) {
      Shape = ArrayShape();
      Type *T = G->getValueType();
      while (auto *AT = dyn_cast<ArrayType>(T)) {
        Shape.Dims.push_back(AT->getNumElements());
        T = AT->getElementType();
      }
      Shape.ElemSize = DL.getTypeAllocSize(T);
      Product = Shape.ElemSize;
      for (uint64_t D : Shape.Dims)
        Product *= D;
      if (Shape.Dims.empty() || Product != Bytes)
        Shape = ArrayShape{1, {Bytes}};
    }
    Constant *InitArg = ConstantPointerNull::get(cast<PointerType>(Ptr));
    if (!G->getInitializer()->isNullValue()) {
      auto *Init = new GlobalVariable(M, G->getValueType(), /*isConstant=*/true, GlobalValue::PrivateLinkage,
                                      G->getInitializer(), Name + ".iopoly.init");
      Init->setAlignment(G->getAlign());
      InitArg = Init;
    }
    auto *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false), GlobalValue::InternalLinkage,
                                  "iopoly.init." + Name, M);
    IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Ctor));
    SmallVector<Constant *, 4> DimC;
    for (uint64_t D : Shape.Dims)
      DimC.push_back(B.getInt64(D));
    auto *DimT = ArrayType::get(B.getInt64Ty(), DimC.size());
    auto *Dims = new GlobalVariable(M, DimT, /*isConstant=*/true, GlobalValue::PrivateLinkage,
                                    ConstantArray::get(DimT, DimC), Name + ".iopoly.dims");
    // The file layout chosen by FileLayoutPass (null: row-major).
    Constant *LayoutArg = ConstantPointerNull::get(cast<PointerType>(Ptr));
    SmallVector<unsigned, 4> Perm = layoutOf(*G);
    if (!Perm.empty() && Perm.size() == Shape.Dims.size()) {
      SmallVector<Constant *, 4> PC;
      for (unsigned P : Perm)
        PC.push_back(B.getInt32(P));
      auto *PT = ArrayType::get(B.getInt32Ty(), PC.size());
      LayoutArg = new GlobalVariable(M, PT, /*isConstant=*/true, GlobalValue::PrivateLinkage,
                                     ConstantArray::get(PT, PC), Name + ".iopoly.layout");
    }
    B.CreateCall(ABI.GlobalInit, {B.CreateGlobalStringPtr(ArrayName, "iopoly.name." + Name),
                                  B.getInt64(Shape.ElemSize), B.getInt32(Shape.Dims.size()), Dims, LayoutArg, InitArg,
                                  Slot});
    B.CreateRetVoid();
    appendToGlobalCtors(M, Ctor, CtorPriority);
  }

  removeFromUsedLists(M, G);
  // Pointers to G in other globals' initializers are set by a constructor
  // right after G's (DiskGlobalRefs.cpp).
  rewriteInitializerRefs(M, G, Slot, CtorPriority + 1);
  convertUsersOfConstantsToInstructions({G});
  SmallVector<Use *, 16> Uses;
  for (Use &U : G->uses())
    Uses.push_back(&U);
  // One load of the slot per function, at its entry: the slot is set by a
  // constructor before main and never changes, so the base is loop-invariant
  // for the analyses that follow (scalar evolution of the addresses).
  DenseMap<Function *, LoadInst *> Bases;
  for (Use *U : Uses) {
    auto *I = dyn_cast<Instruction>(U->getUser());
    if (!I) {
      Ctx.emitError("iopoly: the address of disk-resident array '" + Name +
                    "' is used in the initializer of another global; take it at run time instead");
      continue;
    }
    Function *F = I->getFunction();
    LoadInst *&L = Bases[F];
    if (!L) {
      BasicBlock &Entry = F->getEntryBlock();
      L = new LoadInst(Ptr, Slot, Name + ".base", &*Entry.getFirstInsertionPt());
      L->setMetadata(DiskResidentMD, Slot->getMetadata(DiskResidentMD));
      L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
      L->setMetadata(LLVMContext::MD_nonnull, MDNode::get(Ctx, {}));
    }
    U->set(L);
  }
  if (G->use_empty())
    G->eraseFromParent();
}

PreservedAnalyses DiskGlobalsPass::run(Module &M, ModuleAnalysisManager &) {
  SmallVector<GlobalVariable *, 4> Targets;
  for (GlobalVariable &G : M.globals())
    if (G.getMetadata(DiskResidentMD) && !G.getMetadata(SlotMD))
      Targets.push_back(&G);
  if (Targets.empty())
    return PreservedAnalyses::all();
  RuntimeABI ABI(M);
  for (GlobalVariable *G : Targets)
    rewriteGlobal(M, G, ABI);
  return PreservedAnalyses::none();
}

} // namespace iopoly
