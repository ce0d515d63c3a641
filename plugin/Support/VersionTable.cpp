//===- VersionTable.cpp - IR form of iopoly/tiling.h -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/VersionTable.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace iopoly {

VersionTableTypes::VersionTableTypes(LLVMContext &C) {
  Type *I64 = Type::getInt64Ty(C), *I32 = Type::getInt32Ty(C), *Ptr = PointerType::getUnqual(C);
  Type *I16 = Type::getInt16Ty(C);
  Term = StructType::get(C, {I64, I64, I64, I64, I64, I64, I32, I16, I16});
  Version = StructType::get(C, {I64, I32, I32});
  Table = StructType::get(C, {I32, I32, Ptr, Ptr, Ptr, I32, I32});
}

CallInst *emitVersionChoice(Module &M, Instruction *Before, const std::vector<std::vector<iopoly_tile_term>> &Versions,
                            const std::vector<uint64_t> &Units, StringRef Where, bool Prefetch) {
  LLVMContext &C = M.getContext();
  VersionTableTypes Ty(C);
  auto I64 = [&](uint64_t V) { return ConstantInt::get(Type::getInt64Ty(C), V); };
  auto I32 = [&](uint64_t V) { return ConstantInt::get(Type::getInt32Ty(C), V); };
  std::vector<Constant *> Terms, Vers;
  for (size_t K = 0; K < Versions.size(); ++K) {
    const auto &V = Versions[K];
    Vers.push_back(ConstantStruct::get(Ty.Version, {I64(K < Units.size() ? Units[K] : 0), I32(Terms.size()),
                                                    I32(V.size())}));
    for (const iopoly_tile_term &T : V)
      Terms.push_back(ConstantStruct::get(
          Ty.Term, {I64(T.span), I64(T.runs), I64(T.run), I64(T.window), I64(T.total), I64(T.tiles), I32(T.group),
                    ConstantInt::get(Type::getInt16Ty(C), T.flags), ConstantInt::get(Type::getInt16Ty(C), T.array)}));
  }
  auto *TermsTy = ArrayType::get(Ty.Term, Terms.size());
  auto *VersTy = ArrayType::get(Ty.Version, Vers.size());
  auto *TermsG = new GlobalVariable(M, TermsTy, true, GlobalValue::PrivateLinkage, ConstantArray::get(TermsTy, Terms),
                                    "iopoly.tile.terms");
  auto *VersG = new GlobalVariable(M, VersTy, true, GlobalValue::PrivateLinkage, ConstantArray::get(VersTy, Vers),
                                   "iopoly.tile.versions");
  Constant *WhereStr = IRBuilder<>(Before).CreateGlobalStringPtr(Where, "iopoly.tile.where", 0, &M);
  auto *TableG = new GlobalVariable(
      M, Ty.Table, false, GlobalValue::PrivateLinkage,
      ConstantStruct::get(Ty.Table, {I32(IOPOLY_TILE_ABI), I32(Vers.size()), VersG, TermsG, WhereStr,
                                     ConstantInt::get(Type::getInt32Ty(C), -1, true), I32(Prefetch ? 1 : 0)}),
      "iopoly.tile.table");
  FunctionCallee Pick = M.getOrInsertFunction(
      "__iopoly_pick_version", FunctionType::get(Type::getInt32Ty(C), {PointerType::getUnqual(C)}, false));
  if (auto *F = dyn_cast<Function>(Pick.getCallee()))
    F->setDoesNotThrow();
  return IRBuilder<>(Before).CreateCall(Pick, {TableG}, "iopoly.version");
}

} // namespace iopoly
