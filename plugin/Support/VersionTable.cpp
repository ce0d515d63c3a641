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

void VersionSet::addVersion(uint64_t Unit, uint32_t Flags, const std::vector<iopoly_tile_term> &DataTerms,
                            const std::vector<iopoly_band> &ModelBands,
                            const std::vector<iopoly_band_term> &ModelTerms) {
  uint32_t Base = static_cast<uint32_t>(Bands.size());
  Versions.push_back({Unit, static_cast<uint32_t>(Terms.size()), static_cast<uint32_t>(DataTerms.size()),
                      static_cast<uint32_t>(BandTerms.size()), static_cast<uint32_t>(ModelTerms.size()), Flags, 0});
  Terms.insert(Terms.end(), DataTerms.begin(), DataTerms.end());
  Bands.insert(Bands.end(), ModelBands.begin(), ModelBands.end());
  for (iopoly_band_term T : ModelTerms) {
    T.band += Base;
    BandTerms.push_back(T);
  }
}

iopoly_tile_table VersionSet::table() const {
  return {IOPOLY_TILE_ABI,
          static_cast<uint32_t>(Versions.size()),
          Versions.data(),
          Terms.data(),
          "",
          -1,
          0,
          Bands.empty() ? nullptr : Bands.data(),
          BandTerms.empty() ? nullptr : BandTerms.data()};
}

VersionTableTypes::VersionTableTypes(LLVMContext &C) {
  Type *I64 = Type::getInt64Ty(C), *I32 = Type::getInt32Ty(C), *Ptr = PointerType::getUnqual(C);
  Type *I16 = Type::getInt16Ty(C);
  Type *Dims = ArrayType::get(I64, IOPOLY_BAND_MAX_DIMS);
  Term = StructType::get(C, {I64, I64, I64, I64, I64, I64, I32, I16, I16});
  Version = StructType::get(C, {I64, I32, I32, I32, I32, I32, I32});
  Band = StructType::get(C, {Dims, I32, I32, Dims, Dims, I64, I64, I32, I32});
  BandTerm = StructType::get(C, {I64, Dims, Dims, Dims, I64, I64, I64, I64, I64, I64, Dims, Dims, I64, I64, I32, I16, I16});
  Table = StructType::get(C, {I32, I32, Ptr, Ptr, Ptr, I32, I32, Ptr, Ptr});
}

CallInst *emitVersionChoice(Module &M, Instruction *Before, const VersionSet &Set, StringRef Where, bool Prefetch,
                            bool Tasks) {
  LLVMContext &C = M.getContext();
  VersionTableTypes Ty(C);
  auto I64 = [&](uint64_t V) { return ConstantInt::get(Type::getInt64Ty(C), V); };
  auto I32 = [&](uint64_t V) { return ConstantInt::get(Type::getInt32Ty(C), V); };
  auto I16 = [&](uint64_t V) { return ConstantInt::get(Type::getInt16Ty(C), V); };
  auto Dims = [&](const auto *Values) {
    std::vector<Constant *> E;
    for (unsigned D = 0; D < IOPOLY_BAND_MAX_DIMS; ++D)
      E.push_back(I64(static_cast<uint64_t>(Values[D])));
    return ConstantArray::get(ArrayType::get(Type::getInt64Ty(C), IOPOLY_BAND_MAX_DIMS), E);
  };
  // A constant array global of \p Elems (a null pointer when empty).
  auto Global = [&](StructType *ElemTy, const std::vector<Constant *> &Elems, const char *Name) -> Constant * {
    if (Elems.empty())
      return ConstantPointerNull::get(PointerType::getUnqual(C));
    auto *ArrTy = ArrayType::get(ElemTy, Elems.size());
    return new GlobalVariable(M, ArrTy, true, GlobalValue::PrivateLinkage, ConstantArray::get(ArrTy, Elems), Name);
  };
  std::vector<Constant *> Terms, Vers, Bands, BandTerms;
  for (const iopoly_tile_version &V : Set.Versions)
    Vers.push_back(ConstantStruct::get(Ty.Version, {I64(V.unit), I32(V.first), I32(V.count), I32(V.model_first),
                                                    I32(V.model_count), I32(V.flags), I32(0)}));
  for (const iopoly_tile_term &T : Set.Terms)
    Terms.push_back(ConstantStruct::get(Ty.Term, {I64(T.span), I64(T.runs), I64(T.run), I64(T.window), I64(T.total),
                                                  I64(T.tiles), I32(T.group), I16(T.flags), I16(T.array)}));
  for (const iopoly_band &B : Set.Bands)
    Bands.push_back(ConstantStruct::get(Ty.Band, {Dims(B.count), I32(B.dims), I32(B.nest), Dims(B.lo_step), Dims(B.hi_step),
                                                  I64(static_cast<uint64_t>(B.lo_first)),
                                                  I64(static_cast<uint64_t>(B.hi_first)), I32(B.flags), I32(0)}));
  for (const iopoly_band_term &T : Set.BandTerms)
    BandTerms.push_back(ConstantStruct::get(
        Ty.BandTerm, {I64(static_cast<uint64_t>(T.base)), Dims(T.step), Dims(T.from), Dims(T.upto), I64(T.outer), I64(T.outer_pitch),
                      I64(T.inner), I64(T.inner_pitch), I64(T.run), I64(T.bytes), Dims(T.inner_step), Dims(T.run_step),
                      I64(static_cast<uint64_t>(T.inner_first)), I64(static_cast<uint64_t>(T.run_first)), I32(T.band),
                      I16(T.array), I16(T.flags)}));
  Constant *VersG = Global(Ty.Version, Vers, "iopoly.tile.versions");
  Constant *TermsG = Global(Ty.Term, Terms, "iopoly.tile.terms");
  Constant *BandsG = Global(Ty.Band, Bands, "iopoly.tile.bands");
  Constant *BandTermsG = Global(Ty.BandTerm, BandTerms, "iopoly.tile.band_terms");
  Constant *WhereStr = IRBuilder<>(Before).CreateGlobalStringPtr(Where, "iopoly.tile.where", 0, &M);
  auto *TableG = new GlobalVariable(
      M, Ty.Table, false, GlobalValue::PrivateLinkage,
      ConstantStruct::get(Ty.Table, {I32(IOPOLY_TILE_ABI), I32(Vers.size()), VersG, TermsG, WhereStr,
                                     ConstantInt::get(Type::getInt32Ty(C), -1, true), I32((Prefetch ? IOPOLY_TABLE_PREFETCH : 0) | (Tasks ? IOPOLY_TABLE_TASKS : 0)),
                                     BandsG,
                                     BandTermsG}),
      "iopoly.tile.table");
  FunctionCallee Pick = M.getOrInsertFunction(
      "__iopoly_pick_version", FunctionType::get(Type::getInt32Ty(C), {PointerType::getUnqual(C)}, false));
  if (auto *F = dyn_cast<Function>(Pick.getCallee()))
    F->setDoesNotThrow();
  return IRBuilder<>(Before).CreateCall(Pick, {TableG}, "iopoly.version");
}

} // namespace iopoly
