//===- DiskGlobalRefs.cpp - Disk-resident arrays in other initializers -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/DiskGlobalRefs.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace iopoly {

namespace {

/// A pointer to G + \p FromG bytes, to be stored at \p InGV bytes into GV.
struct Ref {
  uint64_t InGV;
  int64_t FromG;
};

class Rewriter {
public:
  Rewriter(const DataLayout &DL, GlobalVariable *G) : DL(DL), G(G) {}

  /// C with every pointer into G replaced by null (recorded in Refs);
  /// sets Unsupported when G appears in another form.
  Constant *replace(Constant *C, uint64_t Off) {
    if (!refersToG(C))
      return C;
    if (auto *CA = dyn_cast<ConstantAggregate>(C)) {
      SmallVector<Constant *, 8> Ops;
      for (unsigned I = 0; I < CA->getNumOperands(); ++I)
        Ops.push_back(replace(CA->getOperand(I), Off + elementOffset(C->getType(), I)));
      if (auto *ST = dyn_cast<StructType>(C->getType()))
        return ConstantStruct::get(ST, Ops);
      if (auto *AT = dyn_cast<ArrayType>(C->getType()))
        return ConstantArray::get(AT, Ops);
      return ConstantVector::get(Ops);
    }
    if (C->getType()->isPointerTy()) {
      APInt Delta(DL.getIndexTypeSizeInBits(C->getType()), 0);
      const Value *Base = C->stripAndAccumulateConstantOffsets(DL, Delta, /*AllowNonInbounds=*/true);
      if (Base == G) {
        Refs.push_back({Off, Delta.getSExtValue()});
        return ConstantPointerNull::get(cast<PointerType>(C->getType()));
      }
    }
    Unsupported = true;
    return C;
  }

  std::vector<Ref> Refs;
  bool Unsupported = false;

private:
  bool refersToG(const Constant *C) {
    if (C == G)
      return true;
    for (const Use &U : C->operands())
      if (auto *Op = dyn_cast<Constant>(U.get()))
        if (!isa<GlobalValue>(Op) || Op == G)
          if (refersToG(Op))
            return true;
    return false;
  }
  uint64_t elementOffset(Type *T, unsigned I) {
    if (auto *ST = dyn_cast<StructType>(T))
      return DL.getStructLayout(ST)->getElementOffset(I);
    Type *E = isa<ArrayType>(T) ? T->getArrayElementType() : cast<VectorType>(T)->getElementType();
    return I * DL.getTypeAllocSize(E);
  }
  const DataLayout &DL;
  GlobalVariable *G;
};

/// "file:line: " of \p GV when it has debug information, else "".
std::string locationOf(const GlobalVariable &GV) {
  SmallVector<DIGlobalVariableExpression *, 1> DI;
  GV.getDebugInfo(DI);
  for (DIGlobalVariableExpression *E : DI)
    if (DIGlobalVariable *V = E->getVariable())
      return (V->getFilename() + ":" + Twine(V->getLine()) + ": ").str();
  return "";
}

} // namespace

void rewriteInitializerRefs(Module &M, GlobalVariable *G, GlobalVariable *Slot, int Priority) {
  LLVMContext &Ctx = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  G->removeDeadConstantUsers();
  SmallVector<GlobalVariable *, 4> Users;
  for (GlobalVariable &GV : M.globals())
    if (&GV != G && GV.hasInitializer() && !GV.getName().starts_with("llvm.")) {
      Rewriter Probe(DL, G);
      Probe.replace(GV.getInitializer(), 0);
      if (!Probe.Refs.empty() || Probe.Unsupported)
        Users.push_back(&GV);
    }
  for (GlobalVariable *GV : Users) {
    Rewriter R(DL, G);
    Constant *New = R.replace(GV->getInitializer(), 0);
    std::string Where = locationOf(*GV);
    if (R.Unsupported) {
      Ctx.emitError("iopoly: " + Where + "the address of disk-resident array '" + G->getName().str() +
                    "' is used in the initializer of '" + GV->getName().str() +
                    "' in a form that cannot be set at run time (only the array itself or a constant offset into "
                    "it can); take it at run time instead");
      // Compilation fails anyway; without the use no second message follows.
      GV->setInitializer(Constant::getNullValue(GV->getValueType()));
      continue;
    }
    // The constructor writes the run-time addresses: no longer constant.
    GV->setInitializer(New);
    GV->setConstant(false);
    auto *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false), GlobalValue::InternalLinkage,
                                  "iopoly.refs." + G->getName() + "." + GV->getName(), M);
    IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Ctor));
    Value *Base = B.CreateLoad(PointerType::getUnqual(Ctx), Slot, G->getName() + ".base");
    for (const Ref &F : R.Refs) {
      Value *Addr = B.CreateConstGEP1_64(B.getInt8Ty(), Base, static_cast<uint64_t>(F.FromG));
      Value *At = B.CreateConstGEP1_64(B.getInt8Ty(), GV, F.InGV);
      B.CreateStore(Addr, At);
    }
    B.CreateRetVoid();
    appendToGlobalCtors(M, Ctor, Priority);
  }
  G->removeDeadConstantUsers();
}

} // namespace iopoly
