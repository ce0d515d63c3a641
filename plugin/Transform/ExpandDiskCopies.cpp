//===- ExpandDiskCopies.cpp - memcpy/memset on disk arrays as loops -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/ExpandDiskCopies.h"
#include "Analysis/LocalitySets.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumExpanded, "memcpy/memset calls on disk-resident arrays expanded into element loops");

namespace iopoly {

namespace {

/// The one element type every load and store of each underlying object in
/// \p F uses (null where sizes differ).
DenseMap<const Value *, Type *> elementTypes(Function &F, const DataLayout &DL) {
  DenseMap<const Value *, Type *> Types;
  for (Instruction &I : instructions(F)) {
    Value *Ptr = nullptr;
    Type *T = nullptr;
    if (auto *L = dyn_cast<LoadInst>(&I)) {
      Ptr = L->getPointerOperand();
      T = L->getType();
    } else if (auto *S = dyn_cast<StoreInst>(&I)) {
      Ptr = S->getPointerOperand();
      T = S->getValueOperand()->getType();
    } else {
      continue;
    }
    const Value *Base = getUnderlyingObject(Ptr, /*MaxLookup=*/0);
    auto [It, New] = Types.try_emplace(Base, T);
    if (!New && It->second && DL.getTypeStoreSize(It->second) != DL.getTypeStoreSize(T))
      It->second = nullptr;
  }
  return Types;
}

bool usable(Type *T, const DataLayout &DL) {
  if (!T || !(T->isIntegerTy() || T->isFloatingPointTy()))
    return false;
  uint64_t Size = DL.getTypeStoreSize(T);
  return Size > 1 && isPowerOf2_64(Size) && DL.getTypeAllocSize(T) == Size;
}

/// Whether \p V is a multiple of \p Size bytes (for pointers: from \p Base).
bool multipleOf(ScalarEvolution &SE, const Value *V, const Value *Base, uint64_t Size) {
  const SCEV *S = SE.getSCEV(const_cast<Value *>(V));
  if (Base) {
    S = SE.getMinusSCEV(S, SE.getSCEV(const_cast<Value *>(Base)));
    if (isa<SCEVCouldNotCompute>(S))
      return false;
  }
  return SE.getMinTrailingZeros(S) >= Log2_64(Size);
}

/// Replaces \p M by a loop over \p Count elements of type \p T (an integer
/// of the arrays' element size: copies bits exactly, and Polly only
/// compares element sizes): guard -> preheader -> body (one block,
/// rotated) -> exit.
void expand(MemIntrinsic *M, IntegerType *T, Value *Count, Value *SetValue) {
  LLVMContext &Ctx = M->getContext();
  Function *F = M->getFunction();
  BasicBlock *Guard = M->getParent();
  BasicBlock *Cont = SplitBlock(Guard, M, static_cast<DominatorTree *>(nullptr), nullptr, nullptr, "copy.cont");
  BasicBlock *Pre = BasicBlock::Create(Ctx, "copy.ph", F, Cont);
  BasicBlock *Body = BasicBlock::Create(Ctx, "copy.body", F, Cont);
  BasicBlock *Exit = BasicBlock::Create(Ctx, "copy.exit", F, Cont);
  IntegerType *IdxTy = cast<IntegerType>(Count->getType());

  Guard->getTerminator()->eraseFromParent();
  IRBuilder<> B(Guard);
  B.SetCurrentDebugLocation(M->getDebugLoc());
  B.CreateCondBr(B.CreateICmpNE(Count, ConstantInt::get(IdxTy, 0)), Pre, Cont);

  B.SetInsertPoint(Pre);
  B.CreateBr(Body);

  B.SetInsertPoint(Body);
  PHINode *K = B.CreatePHI(IdxTy, 2, "copy.k");
  K->addIncoming(ConstantInt::get(IdxTy, 0), Pre);
  uint64_t Size = T->getBitWidth() / 8;
  Value *Dst = B.CreateInBoundsGEP(T, M->getDest(), K);
  Align A = commonAlignment(M->getDestAlign().valueOrOne(), Size);
  if (auto *C = dyn_cast<MemTransferInst>(M)) {
    Value *Src = B.CreateInBoundsGEP(T, C->getSource(), K);
    B.CreateAlignedStore(B.CreateAlignedLoad(T, Src, commonAlignment(C->getSourceAlign().valueOrOne(), Size)), Dst, A);
  } else {
    B.CreateAlignedStore(SetValue, Dst, A);
  }
  Value *Next = B.CreateAdd(K, ConstantInt::get(IdxTy, 1), "copy.next", /*HasNUW=*/true, /*HasNSW=*/true);
  K->addIncoming(Next, Body);
  B.CreateCondBr(B.CreateICmpULT(Next, Count), Body, Exit);

  B.SetInsertPoint(Exit);
  B.CreateBr(Cont);
  M->eraseFromParent();
}

/// The value a memset of byte \p Byte stores into each element of type \p T
/// (null unless the byte is a constant).
Value *splat(Value *Byte, IntegerType *T) {
  auto *C = dyn_cast<ConstantInt>(Byte);
  if (!C)
    return nullptr;
  return ConstantInt::get(T, APInt::getSplat(T->getBitWidth(), C->getValue().zextOrTrunc(8)));
}

} // namespace

PreservedAnalyses ExpandDiskCopiesPass::run(Function &F, FunctionAnalysisManager &FAM) {
  SmallVector<MemIntrinsic *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *M = dyn_cast<MemIntrinsic>(&I))
      if (!M->isVolatile() && !isa<MemMoveInst>(M) &&
          (diskResidentPointer(M->getDest(), nullptr) ||
           (isa<MemTransferInst>(M) && diskResidentPointer(cast<MemTransferInst>(M)->getSource(), nullptr))))
        Calls.push_back(M);
  if (Calls.empty())
    return PreservedAnalyses::all();
  const DataLayout &DL = F.getParent()->getDataLayout();
  DenseMap<const Value *, Type *> Types = elementTypes(F, DL);
  ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  struct Plan {
    MemIntrinsic *M;
    IntegerType *T;
    Value *Set;
  };
  SmallVector<Plan, 8> Plans;
  for (MemIntrinsic *M : Calls) {
    // The element type: the one the arrays' own accesses use.
    SmallVector<const Value *, 2> Ptrs{M->getDest()};
    if (auto *C = dyn_cast<MemTransferInst>(M))
      Ptrs.push_back(C->getSource());
    uint64_t Size = 0;
    bool Ok = true;
    for (const Value *P : Ptrs) {
      auto It = Types.find(getUnderlyingObject(P, /*MaxLookup=*/0));
      // No other access: any element size agrees. Accesses of several
      // sizes already: Polly sees mixed sizes whatever the copy does, and
      // a copy in the other array's elements is still exact.
      if (It == Types.end() || !It->second)
        continue;
      if (!usable(It->second, DL) || (Size && Size != DL.getTypeStoreSize(It->second)))
        Ok = false;
      else
        Size = DL.getTypeStoreSize(It->second);
    }
    if (!Ok || !Size)
      continue;
    for (const Value *P : Ptrs)
      Ok &= multipleOf(SE, P, getUnderlyingObject(P, 0), Size);
    Ok &= multipleOf(SE, M->getLength(), nullptr, Size);
    IntegerType *T = IntegerType::get(F.getContext(), static_cast<unsigned>(Size * 8));
    Value *Set = nullptr;
    if (auto *S = dyn_cast<MemSetInst>(M)) {
      Set = splat(S->getValue(), T);
      Ok &= Set != nullptr;
    }
    if (Ok)
      Plans.push_back({M, T, Set});
  }
  if (Plans.empty())
    return PreservedAnalyses::all();
  for (Plan &P : Plans) {
    IRBuilder<> B(P.M);
    Value *Len = P.M->getLength();
    Value *Count = B.CreateLShr(Len, Log2_64(P.T->getBitWidth() / 8), "copy.n", /*isExact=*/true);
    expand(P.M, P.T, Count, P.Set);
    ++NumExpanded;
  }
  return PreservedAnalyses::none();
}

} // namespace iopoly
