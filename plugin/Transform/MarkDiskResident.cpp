//===- MarkDiskResident.cpp - Pragma names -> IR markers -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/MarkDiskResident.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/RuntimeABI.h"
#include "Transform/FileLayout.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

#define DEBUG_TYPE "iopoly-mark"

using namespace llvm;

namespace iopoly {

/// The annotation string of an llvm.var.annotation call ("" if none).
static StringRef annotationOf(const CallInst &CI) {
  if (CI.arg_size() < 2)
    return "";
  auto *GV = dyn_cast<GlobalVariable>(CI.getArgOperand(1)->stripPointerCasts());
  if (!GV || !GV->hasInitializer())
    return "";
  auto *Data = dyn_cast<ConstantDataArray>(GV->getInitializer());
  return Data && Data->isCString() ? Data->getAsCString() : "";
}

PreservedAnalyses MarkDiskResidentPass::run(Module &M, ModuleAnalysisManager &) {
  LLVMContext &Ctx = M.getContext();
  bool Changed = false;
  for (const DiskResidentGlobal &D : takeDiskResidentGlobals())
    if (GlobalVariable *G = M.getGlobalVariable(D.Symbol, /*AllowInternal=*/true)) {
      G->setMetadata(DiskResidentMD, diskResidentNode(Ctx, D.Name, D.Shape));
      Changed = true;
    }

  // Globals annotated by the frontend (llvm.global.annotations entries
  // {global, string, file, line, args}): take ours out of the list.
  if (GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations")) {
    if (auto *Arr = dyn_cast_or_null<ConstantArray>(GA->getInitializer())) {
      SmallVector<Constant *, 8> Keep;
      for (Value *Op : Arr->operands()) {
        auto *CS = dyn_cast<ConstantStruct>(Op);
        auto *G = CS ? dyn_cast<GlobalVariable>(CS->getOperand(0)->stripPointerCasts()) : nullptr;
        auto *Str = CS ? dyn_cast<GlobalVariable>(CS->getOperand(1)->stripPointerCasts()) : nullptr;
        auto *Data = Str && Str->hasInitializer() ? dyn_cast<ConstantDataArray>(Str->getInitializer()) : nullptr;
        if (G && Data && Data->isCString() && Data->getAsCString().starts_with(AnnotationPrefix)) {
          std::string Name;
          ArrayShape Shape;
          parseAnnotation(Data->getAsCString().drop_front(StringRef(AnnotationPrefix).size()), Name, Shape);
          G->setMetadata(DiskResidentMD, diskResidentNode(Ctx, Name, Shape));
          Changed = true;
          continue;
        }
        Keep.push_back(cast<Constant>(Op));
      }
      if (Keep.size() != Arr->getNumOperands()) {
        auto *T = ArrayType::get(Arr->getType()->getElementType(), Keep.size());
        GlobalVariable *New = new GlobalVariable(M, T, GA->isConstant(), GA->getLinkage(),
                                                 ConstantArray::get(T, Keep), "", GA);
        New->setSection(GA->getSection());
        New->takeName(GA);
        GA->eraseFromParent();
        if (Keep.empty())
          New->eraseFromParent();
      }
    }
  }

  // `#pragma iopoly layout(V, ...)`: a request on the global named V.
  for (const LayoutPragma &P : takeLayoutPragmas()) {
    GlobalVariable *Target = nullptr;
    for (GlobalVariable &G : M.globals()) {
      MDNode *N = G.getMetadata(DiskResidentMD);
      auto *S = N && N->getNumOperands() ? dyn_cast<MDString>(N->getOperand(0)) : nullptr;
      if (N && (G.getName() == P.Name || (S && S->getString() == P.Name)))
        Target = &G;
    }
    if (!Target) {
      Ctx.emitError("iopoly: " + P.Where + ": '#pragma iopoly layout' names '" + P.Name +
                    "', which is not a disk-resident global array of this file (name it in '#pragma iopoly "
                    "disk_resident' first)");
      continue;
    }
    SmallVector<Metadata *, 4> Ops;
    for (unsigned X : P.Perm)
      Ops.push_back(ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), X)));
    Target->setMetadata(LayoutRequestMD, MDNode::get(Ctx, Ops));
    Changed = true;
  }

  SmallVector<CallInst *, 8> Annotations;
  for (Function &F : M)
    if (F.getIntrinsicID() == Intrinsic::var_annotation)
      for (User *U : F.users())
        if (auto *CI = dyn_cast<CallInst>(U))
          if (annotationOf(*CI).starts_with(AnnotationPrefix))
            Annotations.push_back(CI);

  for (CallInst *CI : Annotations) {
    StringRef Name = annotationOf(*CI).drop_front(StringRef(AnnotationPrefix).size());
    Value *Slot = CI->getArgOperand(0)->stripPointerCasts();
    Function *Marker = getOrCreateMarker(M);
    MDNode *NameMD = MDNode::get(Ctx, MDString::get(Ctx, Name));
    SmallVector<LoadInst *, 8> Loads;
    for (User *U : Slot->users())
      if (auto *L = dyn_cast<LoadInst>(U))
        if (L->getType()->isPointerTy())
          Loads.push_back(L);
    for (LoadInst *L : Loads) {
      auto *Mark = CallInst::Create(Marker->getFunctionType(), Marker, {L}, "", L->getNextNode());
      Mark->setMetadata(DiskResidentMD, NameMD);
      L->replaceUsesWithIf(Mark, [&](Use &U) { return U.getUser() != Mark; });
    }
    CI->eraseFromParent();
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace iopoly
