//===- LayoutInstrument.cpp - Counters for layout profiles -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/LayoutInstrument.h"
#include "Support/LayoutProfile.h"
#include "iopoly/abi.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstddef>
#include <map>

using namespace llvm;

namespace iopoly {

static_assert(sizeof(iopoly_layout_site) == 3 * sizeof(void *) + 2 * sizeof(uint32_t),
              "struct iopoly_layout_site is {ptr, ptr, ptr, i32, i32} without padding");
static_assert(offsetof(iopoly_layout_sites, unit) == 8 && sizeof(iopoly_layout_sites) == 8 + 3 * sizeof(void *),
              "struct iopoly_layout_sites is {i32, i32, ptr, ptr, ptr}");

void instrumentLayoutSites(Module &M, ArrayRef<LayoutSiteRef> Sites) {
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx), *I64 = Type::getInt64Ty(Ctx), *Ptr = PointerType::getUnqual(Ctx);
  auto *CountsT = ArrayType::get(I64, Sites.size());
  auto *Counts = new GlobalVariable(M, CountsT, /*isConstant=*/false, GlobalValue::InternalLinkage,
                                    Constant::getNullValue(CountsT), "iopoly.layout.counts");
  Counts->setAlignment(Align(8));
  std::map<std::string, Constant *> Strings;
  auto Str = [&](const std::string &S) -> Constant * {
    Constant *&G = Strings[S];
    if (!G) {
      Constant *Data = ConstantDataArray::getString(Ctx, S);
      auto *V = new GlobalVariable(M, Data->getType(), true, GlobalValue::PrivateLinkage, Data, "iopoly.layout.str");
      V->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
      G = V;
    }
    return G;
  };
  auto *SiteT = StructType::get(Ctx, {Ptr, Ptr, Ptr, I32, I32});
  SmallVector<Constant *, 16> Table;
  for (unsigned K = 0; K < Sites.size(); ++K) {
    const LayoutSiteRef &S = Sites[K];
    IRBuilder<> B(S.I);
    Value *Counter = B.CreateConstInBoundsGEP2_32(CountsT, Counts, 0, K, "iopoly.layout.count");
    B.CreateAtomicRMW(AtomicRMWInst::Add, Counter, B.getInt64(1), MaybeAlign(8), AtomicOrdering::Monotonic);
    std::string Where = "-";
    if (DILocation *L = S.I->getDebugLoc().get())
      Where = profileField(L->getFilename()) + ":" + std::to_string(L->getLine()) + ":" +
              std::to_string(L->getColumn());
    Table.push_back(ConstantStruct::get(
        SiteT, {Str(profileField(S.Array)), Str(profileField(S.I->getFunction()->getName())), Str(Where),
                ConstantInt::get(I32, S.Site), ConstantInt::get(I32, isa<StoreInst>(S.I) ? 1 : 0)}));
  }
  auto *SitesT = ArrayType::get(SiteT, Table.size());
  auto *SitesG = new GlobalVariable(M, SitesT, true, GlobalValue::PrivateLinkage, ConstantArray::get(SitesT, Table),
                                    "iopoly.layout.sites");
  auto *TableT = StructType::get(Ctx, {I32, I32, Ptr, Ptr, Ptr});
  auto *TableG = new GlobalVariable(
      M, TableT, true, GlobalValue::PrivateLinkage,
      ConstantStruct::get(TableT, {ConstantInt::get(I32, IOPOLY_LAYOUT_SITES_ABI), ConstantInt::get(I32, Table.size()),
                                   Str(profileField(M.getSourceFileName())), SitesG, Counts}),
      "iopoly.layout.table");
  FunctionCallee Register =
      M.getOrInsertFunction("__iopoly_layout_profile", FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false));
  auto *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false), GlobalValue::InternalLinkage,
                                "iopoly.layout.profile", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Ctor));
  B.CreateCall(Register, {TableG});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 65535);
}

} // namespace iopoly
