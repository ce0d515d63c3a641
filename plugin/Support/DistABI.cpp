//===- DistABI.cpp - IR form of include/iopoly/dist.h ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/DistABI.h"

#include "llvm/IR/DerivedTypes.h"

using namespace llvm;

namespace iopoly {

DistABI::DistABI(Module &M) {
  LLVMContext &C = M.getContext();
  Type *I64 = Type::getInt64Ty(C);
  Type *Ptr = PointerType::get(C, 0);
  Loop = StructType::getTypeByName(C, "struct.iopoly_dist_loop");
  if (!Loop) {
    std::vector<Type *> F(NumFields, I64);
    for (unsigned P : {FieldPieces, FieldTagStart, FieldTags, FieldTopology, FieldTableStart, FieldTable, FieldWhere,
                       FieldState})
      F[P] = Ptr;
    Loop = StructType::create(C, F, "struct.iopoly_dist_loop");
  }
  Begin = M.getOrInsertFunction("__iopoly_dist_begin", FunctionType::get(I64, {Ptr}, false));
  Piece = M.getOrInsertFunction("__iopoly_dist_piece", FunctionType::get(Type::getVoidTy(C), {Ptr, I64, Ptr, Ptr}, false));
  End = M.getOrInsertFunction("__iopoly_dist_end", FunctionType::get(Type::getVoidTy(C), {Ptr}, false));
}

} // namespace iopoly
