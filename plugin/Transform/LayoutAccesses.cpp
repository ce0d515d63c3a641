//===- LayoutAccesses.cpp - Every access of an array whose layout may change ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/LayoutAccesses.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/RuntimeABI.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/MemoryBuiltins.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace iopoly {

bool formOf(Type *T, ArrayForm &F) {
  while (auto *AT = dyn_cast<ArrayType>(T)) {
    F.Levels.push_back(AT);
    F.Dims.push_back(AT->getNumElements());
    T = AT->getElementType();
  }
  F.Levels.push_back(T);
  return F.rank() >= 2 && !T->isAggregateType();
}

std::string describeUse(const User *U) {
  if (auto *M = dyn_cast<MemIntrinsic>(U))
    return std::string("a ") + (isa<MemSetInst>(M) ? "memset" : isa<MemMoveInst>(M) ? "memmove" : "memcpy") +
           " copies its bytes in row-major order";
  if (auto *CB = dyn_cast<CallBase>(U)) {
    const Function *Callee = CB->getCalledFunction();
    if (!Callee)
      return "its address is passed to an indirect call";
    return "its address is passed to function '" + Callee->getName().str() + "', which " +
           (Callee->isDeclaration() ? "is compiled without the layout choice" : "is not one the pass follows");
  }
  if (isa<StoreInst>(U))
    return "its address is stored to memory";
  if (isa<ReturnInst>(U))
    return "its address is returned";
  if (isa<GetElementPtrInst>(U))
    return "pointer arithmetic walks it other than by its dimensions";
  if (isa<Constant>(U))
    return "its address is used in the initializer of another global";
  if (auto *I = dyn_cast<Instruction>(U))
    return std::string("its address is used by a '") + I->getOpcodeName() + "' instruction";
  return "its address is used in a way the pass does not follow";
}

namespace {

/// A pointer into the array: it points to the start of the subarray
/// Levels[Level] at subscripts Prefix (the later ones 0).
struct PtrItem {
  Value *Ptr;
  unsigned Level;
  SmallVector<Value *, 4> Prefix;
  SmallVector<std::pair<unsigned, Value *>, 1> Added;
  Value *Base;
};

bool isZero(const Value *V) {
  auto *C = dyn_cast<ConstantInt>(V);
  return C && C->isZero();
}

/// Whether \p It points to the array's first element.
bool atBase(const PtrItem &It) { return It.Added.empty() && llvm::all_of(It.Prefix, isZero); }

bool isMarkerCall(const Value *V) {
  auto *CB = dyn_cast<CallBase>(V);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  return F && F->getName() == MarkerName;
}

/// What the walk does with a call that takes the pointer.
enum class CallUse { Escape, Alias, Ignore };
using CallPolicy = function_ref<CallUse(CallBase &, const Use &, const PtrItem &, std::string &)>;

/// Follows the uses of \p Start through GEPs that index the array's
/// dimensions down to loads and stores of elements.
std::string walk(const PtrItem &Start, const ArrayForm &F, CallPolicy OnCall, bool AllowCompare,
                 std::vector<ElementAccess> &Out) {
  unsigned M = F.rank();
  Type *I64 = Type::getInt64Ty(Start.Ptr->getContext());
  Constant *Zero = ConstantInt::get(I64, 0);
  SmallVector<PtrItem, 16> Work{Start};
  auto Complete = [&](const PtrItem &It, Instruction *I) {
    ElementAccess A{I, It.Base, It.Prefix, It.Added};
    while (A.Index.size() < M)
      A.Index.push_back(Zero);
    Out.push_back(std::move(A));
  };
  while (!Work.empty()) {
    PtrItem It = Work.pop_back_val();
    for (Use &U : It.Ptr->uses()) {
      User *Usr = U.getUser();
      if (auto *GEP = dyn_cast<GetElementPtrInst>(Usr)) {
        if (GEP->getPointerOperand() != It.Ptr)
          return describeUse(Usr);
        // A pointer to a subarray also points to its first row and element.
        unsigned K = It.Level;
        while (K < F.Levels.size() && F.Levels[K] != GEP->getSourceElementType())
          ++K;
        unsigned NewLevel = K + GEP->getNumIndices() - 1;
        if (K == F.Levels.size() || NewLevel > M)
          return "pointer arithmetic walks it other than by its dimensions";
        PtrItem Next{GEP, NewLevel, It.Prefix, It.Added, It.Base};
        while (Next.Prefix.size() < K)
          Next.Prefix.push_back(Zero);
        Value *First = GEP->getOperand(1);
        if (!isZero(First)) {
          // Stepping whole rows moves along the first dimension; stepping
          // inside a row could cross into the next one.
          if (K != 1)
            return "pointer arithmetic walks it other than by its dimensions";
          if (isZero(Next.Prefix[0]))
            Next.Prefix[0] = First;
          else
            Next.Added.push_back({0, First});
        }
        for (unsigned Op = 2; Op <= GEP->getNumIndices(); ++Op)
          Next.Prefix.push_back(GEP->getOperand(Op));
        if (atBase(Next))
          Next.Base = GEP;
        Work.push_back(std::move(Next));
      } else if (auto *L = dyn_cast<LoadInst>(Usr)) {
        if (L->getType() != F.elem())
          return "it is read as another type than its elements";
        Complete(It, L);
      } else if (auto *S = dyn_cast<StoreInst>(Usr)) {
        if (S->getValueOperand() == It.Ptr)
          return describeUse(Usr);
        if (S->getValueOperand()->getType() != F.elem())
          return "it is written as another type than its elements";
        Complete(It, S);
      } else if (auto *CB = dyn_cast<CallBase>(Usr)) {
        std::string Why;
        switch (OnCall(*CB, U, It, Why)) {
        case CallUse::Escape:
          return Why.empty() ? describeUse(Usr) : Why;
        case CallUse::Ignore:
          break;
        case CallUse::Alias: {
          PtrItem Next = It;
          Next.Ptr = CB;
          Next.Base = CB;
          Work.push_back(std::move(Next));
          break;
        }
        }
      } else if (!(AllowCompare && isa<ICmpInst>(Usr))) {
        return describeUse(Usr);
      }
    }
  }
  return "";
}

} // namespace

std::string collectAccesses(GlobalVariable &G, const ArrayForm &F, std::vector<ElementAccess> &Out) {
  auto NoCalls = [](CallBase &, const Use &, const PtrItem &, std::string &) { return CallUse::Escape; };
  return walk({&G, 0, {}, {}, &G}, F, NoCalls, /*AllowCompare=*/false, Out);
}

//===----------------------------------------------------------------------===//
// Allocated arrays
//===----------------------------------------------------------------------===//

namespace {

bool isAllocation(const CallBase &CB, const TargetLibraryInfo &TLI) {
  const Function *F = CB.getCalledFunction();
  if (!F || !CB.getType()->isPointerTy())
    return false;
  StringRef N = F->getName();
  return CB.returnDoesNotAlias() || isAllocationFn(&CB, &TLI) || N == "iopoly_alloc" || N == "iopoly_alloc_flags" ||
         N == "iopoly_alloc_elems";
}

bool isRelease(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  return F && F->isDeclaration() && (F->getName() == "free" || F->getName() == "iopoly_free");
}

/// \p V without GEPs of constant zeros and markers: what it points to the
/// start of.
Value *startOf(Value *V) {
  for (;;) {
    if (auto *GEP = dyn_cast<GetElementPtrInst>(V)) {
      if (llvm::all_of(GEP->indices(), [](const Use &I) { return isZero(I.get()); })) {
        V = GEP->getPointerOperand();
        continue;
      }
    } else if (isMarkerCall(V)) {
      V = cast<CallBase>(V)->getArgOperand(0);
      continue;
    }
    return V;
  }
}

std::string markerName(const CallBase &CB) { return nameOfNode(CB.getMetadata(DiskResidentMD)); }

/// The pointers of the allocated arrays, grouped: an allocation, and every
/// parameter it reaches, are one group; a parameter reached by two
/// allocations joins their groups.
class Groups {
public:
  unsigned add(Value *V) {
    auto [It, New] = Id.try_emplace(V, Parent.size());
    if (New) {
      Parent.push_back(Parent.size());
      Members.push_back(V);
      Work.push_back(V);
    }
    return It->second;
  }
  unsigned find(unsigned X) {
    while (Parent[X] != X)
      X = Parent[X] = Parent[Parent[X]];
    return X;
  }
  void unite(Value *A, Value *B) { Parent[find(add(A))] = find(add(B)); }
  void poison(Value *V, std::string Why) { Poison.push_back({add(V), std::move(Why)}); }

  DenseMap<Value *, unsigned> Id;
  std::vector<unsigned> Parent;
  std::vector<Value *> Members;
  std::vector<Value *> Work;
  std::vector<std::pair<unsigned, std::string>> Poison;
};

/// Parameter \p P joins the groups; a new one only if its function is
/// static and every call passes it an allocation or a parameter that
/// satisfies the same (checked in turn), all in its group.
void addParameter(Groups &G, Argument *P, const TargetLibraryInfo &TLI) {
  if (G.Id.count(P))
    return;
  G.add(P);
  Function &Fn = *P->getParent();
  if (!Fn.hasLocalLinkage()) {
    G.poison(P, "it is passed to function '" + Fn.getName().str() +
                    "', which other files may call with other arrays (it is not static)");
    return;
  }
  for (Use &U : Fn.uses()) {
    auto *CB = dyn_cast<CallBase>(U.getUser());
    if (!CB || !CB->isCallee(&U)) {
      G.poison(P, "the address of function '" + Fn.getName().str() + "', which it is passed to, is taken");
      return;
    }
    Value *Arg = startOf(CB->getArgOperand(P->getArgNo()));
    auto *ArgCall = dyn_cast<CallBase>(Arg);
    if (auto *Caller = dyn_cast<Argument>(Arg)) {
      addParameter(G, Caller, TLI);
      G.unite(P, Caller);
    } else if (ArgCall && isAllocation(*ArgCall, TLI)) {
      G.unite(P, Arg);
    } else {
      G.poison(P, "function '" + Fn.getName().str() + "' is also called with an array that is not allocated in this file");
    }
  }
}

unsigned rankOf(Type *T) {
  unsigned R = 0;
  for (; auto *AT = dyn_cast<ArrayType>(T); T = AT->getElementType())
    ++R;
  return R;
}

/// What the pointers of one group show about the array.
struct GroupFacts {
  SmallVector<Value *, 4> Members;
  SmallVector<CallBase *, 2> Allocations;
  SmallVector<std::string, 2> Names;
  Type *Widest = nullptr;      ///< the array type of most dimensions indexed at its start
  bool WidestStepped = false;  ///< that type is also stepped (then it is a row)
  SmallVector<Type *, 4> Types;
  std::string Escape;
};

/// Visits \p V and the pointers that still point to its start (markers,
/// GEPs of zeros): their names, the types they are indexed as, and the
/// functions they are passed to.
void scanStart(Value *V, Groups &G, GroupFacts *Facts, const TargetLibraryInfo &TLI) {
  SmallVector<Value *, 8> Work{V};
  SmallPtrSet<Value *, 8> Seen;
  while (!Work.empty()) {
    Value *P = Work.pop_back_val();
    if (!Seen.insert(P).second)
      continue;
    for (Use &U : P->uses()) {
      User *Usr = U.getUser();
      if (auto *GEP = dyn_cast<GetElementPtrInst>(Usr)) {
        if (GEP->getPointerOperand() != P)
          continue;
        if (Facts) {
          Type *T = GEP->getSourceElementType();
          Facts->Types.push_back(T);
          bool Stepped = !isZero(GEP->getOperand(1));
          if (!Facts->Widest || rankOf(T) > rankOf(Facts->Widest)) {
            Facts->Widest = T;
            Facts->WidestStepped = Stepped;
          } else if (T == Facts->Widest) {
            Facts->WidestStepped |= Stepped;
          }
        }
        if (startOf(GEP) != GEP)
          Work.push_back(GEP);
      } else if (auto *CB = dyn_cast<CallBase>(Usr)) {
        if (isMarkerCall(CB)) {
          if (Facts) {
            std::string N = markerName(*CB);
            if (!N.empty() && !llvm::is_contained(Facts->Names, N))
              Facts->Names.push_back(N);
          }
          Work.push_back(CB);
          continue;
        }
        Function *Callee = CB->getCalledFunction();
        if (!Facts && Callee && !Callee->isDeclaration() && CB->isArgOperand(&U) &&
            Callee->getFunctionType() == CB->getFunctionType()) {
          Argument *P = Callee->getArg(CB->getArgOperandNo(&U));
          addParameter(G, P, TLI);
          G.unite(V, P);
        }
      }
    }
  }
}

/// The array's form from what its pointers are indexed as, or why none.
std::string formOfGroup(const GroupFacts &Facts, const DataLayout &DL, const TargetLibraryInfo &TLI, ArrayForm &F) {
  if (!Facts.Widest || !rankOf(Facts.Widest))
    return "-"; // indexed as scalars only: nothing to permute
  Type *Full = Facts.Widest;
  if (Facts.WidestStepped) {
    // Indexed by rows: their number is the allocation's size over a row's.
    uint64_t Row = DL.getTypeAllocSize(Full), Rows = 0;
    for (CallBase *CB : Facts.Allocations) {
      std::optional<APInt> Size = getAllocSize(CB, &TLI);
      // The runtime's allocators take the size second (no alloc_size
      // attribute in iopoly.h: the header stays plain C for any compiler).
      if (Function *Callee = CB->getCalledFunction(); !Size && Callee && CB->arg_size() >= 2 &&
                                                      (Callee->getName() == "iopoly_alloc" ||
                                                       Callee->getName() == "iopoly_alloc_flags"))
        if (auto *C = dyn_cast<ConstantInt>(CB->getArgOperand(1)))
          Size = C->getValue();
      if (Function *Callee = CB->getCalledFunction(); !Size && Callee && CB->arg_size() >= 3 &&
                                                      Callee->getName() == "iopoly_alloc_elems")
        if (auto *C = dyn_cast<ConstantInt>(CB->getArgOperand(1)))
          if (auto *E = dyn_cast<ConstantInt>(CB->getArgOperand(2))) {
            bool Overflow = false;
            APInt Bytes = C->getValue().umul_ov(E->getValue(), Overflow);
            if (!Overflow)
              Size = Bytes;
          }
      if (!Size || Size->getActiveBits() > 63 || Size->getZExtValue() % Row)
        return "its number of rows is not known at compile time (the allocation's size is not a constant "
               "multiple of a row; cast it to a pointer to the whole array, double (*)[N][M])";
      uint64_t N = Size->getZExtValue() / Row;
      if (Rows && N != Rows)
        return "its allocations have different sizes";
      Rows = N;
    }
    if (!Rows)
      return "its number of rows is not known at compile time";
    Full = ArrayType::get(Full, Rows);
  }
  if (!formOf(Full, F))
    return "-";
  for (Type *T : Facts.Types)
    if (!llvm::is_contained(F.Levels, T))
      return "it is indexed as arrays of different shapes";
  return "";
}

} // namespace

std::vector<AllocatedArray> findAllocatedArrays(Module &M, FunctionAnalysisManager &FAM) {
  Groups G;
  for (Function &Fn : M) {
    if (Fn.isDeclaration())
      continue;
    const TargetLibraryInfo &TLI = FAM.getResult<TargetLibraryAnalysis>(Fn);
    for (Instruction &I : instructions(Fn))
      if (auto *CB = dyn_cast<CallBase>(&I); CB && isAllocation(*CB, TLI))
        G.add(CB);
  }
  // Grow the groups through the parameters the pointers are passed to.
  while (!G.Work.empty()) {
    Value *V = G.Work.back();
    G.Work.pop_back();
    Function *Fn = isa<Argument>(V) ? cast<Argument>(V)->getParent() : cast<Instruction>(V)->getFunction();
    scanStart(V, G, nullptr, FAM.getResult<TargetLibraryAnalysis>(*Fn));
  }
  MapVector<unsigned, GroupFacts> ByGroup;
  for (Value *V : G.Members) {
    GroupFacts &Facts = ByGroup[G.find(G.Id.lookup(V))];
    Facts.Members.push_back(V);
    if (auto *CB = dyn_cast<CallBase>(V))
      Facts.Allocations.push_back(CB);
  }
  for (auto &[Id, Why] : G.Poison) {
    GroupFacts &Facts = ByGroup[G.find(Id)];
    if (Facts.Escape.empty())
      Facts.Escape = Why;
  }

  std::vector<AllocatedArray> Out;
  for (auto &[Id, Facts] : ByGroup) {
    if (Facts.Allocations.empty())
      continue; // parameters only: reached from a group that is not an allocation (poisoned)
    Function &AllocFn = *Facts.Allocations.front()->getFunction();
    const TargetLibraryInfo &TLI = FAM.getResult<TargetLibraryAnalysis>(AllocFn);
    for (Value *V : Facts.Members)
      scanStart(V, G, &Facts, TLI);
    if (Facts.Names.empty())
      continue; // never named by a disk-resident pragma
    AllocatedArray A;
    A.Allocations = Facts.Allocations;
    for (const std::string &N : Facts.Names)
      A.Name += (A.Name.empty() ? "" : "/") + N;
    A.Escape = Facts.Escape;
    if (A.Escape.empty()) {
      A.Escape = formOfGroup(Facts, M.getDataLayout(), TLI, A.F);
      if (A.Escape == "-")
        continue;
    }
    if (A.Escape.empty()) {
      auto Policy = [&](CallBase &CB, const Use &U, const PtrItem &It, std::string &Why) {
        if (isMarkerCall(&CB)) {
          if (atBase(It))
            return CallUse::Alias;
          Why = "a disk-resident pragma names a pointer into its middle";
          return CallUse::Escape;
        }
        bool Param = CB.isArgOperand(&U) && CB.getCalledFunction() &&
                     G.Id.count(CB.getCalledFunction()->getArg(CB.getArgOperandNo(&U)));
        if ((Param || isRelease(CB)) && CB.isArgOperand(&U)) {
          if (atBase(It))
            return CallUse::Ignore; // the parameter is walked as a pointer of its own
          Why = "a pointer into its middle is passed to function '" + CB.getCalledFunction()->getName().str() + "'";
        }
        return CallUse::Escape;
      };
      for (Value *V : Facts.Members) {
        A.Escape = walk({V, 0, {}, {}, V}, A.F, Policy, /*AllowCompare=*/true, A.Accesses);
        if (!A.Escape.empty())
          break;
      }
    }
    if (!A.Escape.empty())
      A.Accesses.clear();
    A.Anchor = A.Allocations.front();
    Out.push_back(std::move(A));
  }
  // Pointers named by a pragma whose allocation the pass never met.
  StringSet<> Covered;
  for (auto &[Id, Facts] : ByGroup)
    if (!Facts.Allocations.empty())
      for (const std::string &N : Facts.Names)
        Covered.insert(N);
  for (Function &Fn : M)
    for (Instruction &I : instructions(Fn)) {
      if (!isMarkerCall(&I))
        continue;
      std::string N = markerName(cast<CallBase>(I));
      if (N.empty() || !Covered.insert(N).second)
        continue;
      AllocatedArray A;
      A.Name = N;
      A.Anchor = &I;
      A.Escape = "the pass does not see its allocation (allocate it in this file with malloc, calloc, "
                 "aligned_alloc, iopoly_alloc or a function declared __attribute__((malloc)), and pass it only to "
                 "static functions of this file)";
      Out.push_back(std::move(A));
    }
  return Out;
}

} // namespace iopoly
