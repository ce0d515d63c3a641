//===- DiskPointers.cpp - Which pointers may reach disk-resident memory ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/DiskPointers.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/RuntimeABI.h"
#include "Transform/DiskGlobals.h"

#include "llvm/Analysis/MemoryBuiltins.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"

using namespace llvm;

namespace iopoly {

static std::string nameFromMD(const MDNode *N, const char *Fallback) {
  std::string Name = nameOfNode(N);
  return Name.empty() ? Fallback : Name;
}

static const Function *functionOf(const Value *V) {
  if (auto *I = dyn_cast<Instruction>(V))
    return I->getFunction();
  if (auto *A = dyn_cast<Argument>(V))
    return A->getParent();
  return nullptr;
}

void DiskPointers::add(const Value *V, unsigned Origin, std::vector<const Value *> &Work) {
  if (!V->getType()->isPointerTy() || !Derived.try_emplace(V, Origin).second)
    return;
  if (const Function *F = functionOf(V))
    Functions.insert(F);
  Work.push_back(V);
}

/// Intrinsics that use a pointer without letting it escape or accessing
/// memory through it (memory intrinsics are lowered separately).
static bool harmlessIntrinsic(const CallBase &CB) {
  if (isa<MemIntrinsic>(CB) || isa<DbgInfoIntrinsic>(CB))
    return true;
  switch (CB.getIntrinsicID()) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::prefetch:
  case Intrinsic::objectsize:
  case Intrinsic::invariant_start:
  case Intrinsic::invariant_end:
    return true;
  default:
    return false;
  }
}

/// Whether \p A is a plain local variable: used only as the address of
/// loads and stores (and lifetime markers), never passed on.
static bool onlyLoadedAndStored(const AllocaInst &A) {
  for (const Use &U : A.uses()) {
    const User *Us = U.getUser();
    if (isa<LoadInst>(Us))
      continue;
    if (auto *S = dyn_cast<StoreInst>(Us))
      if (S->getPointerOperand() == &A)
        continue;
    if (auto *II = dyn_cast<IntrinsicInst>(Us))
      if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II))
        continue;
    return false;
  }
  return true;
}

void DiskPointers::propagate(std::vector<const Value *> &Work) {
  while (!Work.empty()) {
    const Value *V = Work.back();
    Work.pop_back();
    unsigned O = Derived.lookup(V);
    for (const Use &U : V->uses()) {
      const User *Us = U.getUser();
      if (auto *GEP = dyn_cast<GetElementPtrInst>(Us)) {
        if (GEP->getPointerOperand() == V)
          add(GEP, O, Work);
      } else if (isa<PHINode>(Us) || isa<FreezeInst>(Us) || isa<AddrSpaceCastInst>(Us) || isa<BitCastInst>(Us)) {
        add(Us, O, Work);
      } else if (auto *Sel = dyn_cast<SelectInst>(Us)) {
        if (Sel->getCondition() != V)
          add(Sel, O, Work);
      } else if (auto *CB = dyn_cast<CallBase>(Us)) {
        const Function *Callee = CB->getCalledFunction();
        if (Callee && Callee->getName() == MarkerName)
          continue;
        if (!CB->isArgOperand(&U) || harmlessIntrinsic(*CB))
          continue;
        unsigned ArgNo = CB->getArgOperandNo(&U);
        if (Callee && !Callee->isDeclaration() && ArgNo < Callee->arg_size()) {
          add(Callee->getArg(ArgNo), O, Work);
        } else {
          std::string What = Callee ? "is passed to '" + Callee->getName().str() +
                                          "', which is not compiled with the iopoly plugin in this module"
                                    : std::string("is passed through an indirect call");
          Escapes.push_back({const_cast<CallBase *>(CB), Origins[O].Name, What});
        }
      } else if (auto *S = dyn_cast<StoreInst>(Us)) {
        if (S->getValueOperand() != V)
          continue;
        // A local slot that is only loaded and stored (every -O0 variable)
        // passes the pointer on to its loads; other memory loses track.
        auto *Slot = dyn_cast<AllocaInst>(S->getPointerOperand()->stripPointerCasts());
        if (Slot && onlyLoadedAndStored(*Slot)) {
          for (const User *SU : Slot->users())
            if (auto *L = dyn_cast<LoadInst>(SU))
              add(L, O, Work);
        } else {
          Escapes.push_back({const_cast<StoreInst *>(S), Origins[O].Name, "is stored to memory"});
        }
      } else if (auto *R = dyn_cast<ReturnInst>(Us)) {
        // The function returns a disk-resident pointer: so do its calls.
        for (const User *CU : R->getFunction()->users())
          if (auto *Call = dyn_cast<CallBase>(CU))
            if (Call->getCalledFunction() == R->getFunction())
              add(Call, O, Work);
      }
    }
  }
}

DiskPointers::DiskPointers(Module &M) {
  std::vector<const Value *> Work;
  for (GlobalVariable &G : M.globals()) {
    MDNode *Slot = G.getMetadata(SlotMD);
    if (!Slot)
      continue;
    HasGlobals = true;
    Origins.push_back({nameFromMD(Slot, "global")});
    for (User *U : G.users())
      if (auto *L = dyn_cast<LoadInst>(U))
        add(L, Origins.size() - 1, Work);
  }
  if (Function *Marker = findMarker(M))
    for (User *U : Marker->users())
      if (auto *CI = dyn_cast<CallInst>(U)) {
        Origins.push_back({nameFromMD(CI->getMetadata(DiskResidentMD), "pointer")});
        add(CI, Origins.size() - 1, Work);
        Markers.push_back(CI);
      }
  propagate(Work);
}

const DiskOrigin *DiskPointers::originOf(const Value *P) const {
  auto It = Derived.find(P);
  return It == Derived.end() ? nullptr : &Origins[It->second];
}

/// Calls whose result is fresh ordinary memory (C and C++ allocators; not
/// realloc, which returns disk-resident memory it is given).
static bool returnsOrdinaryMemory(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (!F)
    return false;
  StringRef N = F->getName();
  return N == "malloc" || N == "calloc" || N == "aligned_alloc" || N == "memalign" || N == "valloc" ||
         N == "strdup" || N == "strndup" || N == "_Znwm" || N == "_Znam" || N == "_ZnwmRKSt9nothrow_t" ||
         N == "_ZnamRKSt9nothrow_t" || N == "_ZnwmSt11align_val_t" || N == "_ZnamSt11align_val_t";
}

bool DiskPointers::rootsMayBeDisk(const Value *P) {
  auto It = MayBeDisk.find(P);
  if (It != MayBeDisk.end())
    return It->second;
  SmallVector<const Value *, 16> Work{P};
  SmallPtrSet<const Value *, 16> Seen;
  bool Maybe = false;
  while (!Work.empty() && !Maybe) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    if (Seen.size() > 64 || Derived.count(V)) {
      Maybe = true; // too far to follow, or reaches a disk-resident pointer
      break;
    }
    if (auto *GEP = dyn_cast<GEPOperator>(V)) {
      Work.push_back(GEP->getPointerOperand());
    } else if (auto *C = dyn_cast<CastInst>(V)) {
      if (isa<IntToPtrInst>(C))
        Maybe = true;
      else
        Work.push_back(C->getOperand(0));
    } else if (auto *CE = dyn_cast<ConstantExpr>(V)) {
      if (CE->getOpcode() == Instruction::IntToPtr)
        Maybe = true;
      else if (CE->getNumOperands())
        Work.push_back(CE->getOperand(0));
    } else if (auto *Phi = dyn_cast<PHINode>(V)) {
      for (const Value *In : Phi->incoming_values())
        Work.push_back(In);
    } else if (auto *Sel = dyn_cast<SelectInst>(V)) {
      Work.push_back(Sel->getTrueValue());
      Work.push_back(Sel->getFalseValue());
    } else if (auto *Fr = dyn_cast<FreezeInst>(V)) {
      Work.push_back(Fr->getOperand(0));
    } else if (isa<AllocaInst>(V) || isa<GlobalValue>(V) || isa<ConstantPointerNull>(V) || isa<UndefValue>(V) ||
               isa<ConstantData>(V)) {
      // the stack, globals (disk-resident ones were replaced by slots),
      // constants: ordinary
    } else if (auto *A = dyn_cast<Argument>(V)) {
      if (!A->hasByValAttr())
        Maybe = true; // a by-value copy lives in the caller's frame
    } else if (auto *CB = dyn_cast<CallBase>(V)) {
      if (auto *II = dyn_cast<IntrinsicInst>(CB)) {
        switch (II->getIntrinsicID()) {
        case Intrinsic::threadlocal_address:
        case Intrinsic::ptrmask:
        case Intrinsic::launder_invariant_group:
        case Intrinsic::strip_invariant_group:
          Work.push_back(II->getArgOperand(0));
          continue;
        default:
          break;
        }
      }
      if (!returnsOrdinaryMemory(*CB))
        Maybe = true;
    } else {
      Maybe = true; // loads, integer casts, anything else
    }
  }
  MayBeDisk[P] = Maybe;
  return Maybe;
}

const DiskOrigin *DiskPointers::classify(const Value *P) {
  if (Lowered.count(P))
    return nullptr;
  if (const DiskOrigin *O = originOf(P))
    return O;
  return rootsMayBeDisk(P) ? &Unknown : nullptr;
}

void DiskPointers::addDerived(const Value *New, const Value *Old) {
  auto It = Derived.find(Old);
  if (It == Derived.end())
    return;
  unsigned O = It->second;
  Derived[New] = O;
  if (const Function *F = functionOf(New))
    Functions.insert(F);
}

bool DiskPointers::removeMarkers() {
  for (CallInst *CI : Markers) {
    Value *Arg = CI->getArgOperand(0);
    unsigned O = Derived.lookup(CI);
    Derived.erase(CI);
    Derived.try_emplace(Arg, O);
    CI->replaceAllUsesWith(Arg);
    CI->eraseFromParent();
  }
  bool Changed = !Markers.empty();
  Markers.clear();
  return Changed;
}

} // namespace iopoly
