//===- DiskResidentDecls.cpp - Resolving #pragma iopoly names --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Frontend/DiskResidentDecls.h"
#include "Frontend/PragmaHandler.h"
#include "Support/DiskResidentRegistry.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"

using namespace clang;

namespace iopoly {

namespace {

/// Local variables of a function body, in source order.
struct LocalCollector : RecursiveASTVisitor<LocalCollector> {
  std::vector<VarDecl *> Vars;
  bool VisitVarDecl(VarDecl *V) {
    if (!isa<ParmVarDecl>(V))
      Vars.push_back(V);
    return true;
  }
};

void annotate(ASTContext &Ctx, ValueDecl *D, StringRef Name) {
  std::string Text = std::string(AnnotationPrefix) + Name.str();
  for (const AnnotateAttr *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == Text)
      return;
  D->addAttr(AnnotateAttr::CreateImplicit(Ctx, Text, nullptr, 0));
}

} // namespace

unsigned DiskResidentDecls::errorID() {
  return CI.getDiagnostics().getCustomDiagID(DiagnosticsEngine::Error, "%0");
}

bool DiskResidentDecls::HandleTopLevelDecl(DeclGroupRef DG) {
  for (Decl *D : DG)
    if (auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->hasBody())
        resolveInFunction(FD);
  return true;
}

void DiskResidentDecls::resolveInFunction(FunctionDecl *FD) {
  std::vector<DiskResidentPragma> &Pending = pendingPragmas();
  if (Pending.empty())
    return;
  SourceManager &SM = CI.getSourceManager();
  SourceRange Body = FD->getBody()->getSourceRange();
  DiagnosticsEngine &Diags = CI.getDiagnostics();
  LocalCollector Locals;
  bool Collected = false;
  for (auto It = Pending.begin(); It != Pending.end();) {
    if (!SM.isPointWithin(It->Loc, Body.getBegin(), Body.getEnd())) {
      ++It;
      continue;
    }
    if (!Collected) {
      Locals.TraverseStmt(FD->getBody());
      Collected = true;
    }
    for (const PragmaName &N : It->Names) {
      ValueDecl *Found = nullptr;
      for (ParmVarDecl *P : FD->parameters())
        if (P->getName() == N.Name)
          Found = P;
      // The nearest local of that name declared before the pragma wins.
      for (VarDecl *V : Locals.Vars)
        if (V->getName() == N.Name && SM.isBeforeInTranslationUnit(V->getLocation(), It->Loc))
          Found = V;
      if (!Found) {
        Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "' in '#pragma iopoly disk_resident' is not a parameter "
                                           "or local variable of '" + FD->getNameAsString() + "' declared before it");
        continue;
      }
      auto *V = cast<VarDecl>(Found);
      QualType T = V->getType();
      if (!isa<ParmVarDecl>(V) && V->isStaticLocal()) {
        Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "' is a static local: declare disk-resident arrays at file "
                                           "scope, or name a pointer to iopoly_alloc memory");
        continue;
      }
      if (T->isArrayType()) {
        Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "' is a local array: a disk-resident local must be a "
                                           "pointer (to memory from iopoly_alloc)");
        continue;
      }
      if (!T->isPointerType()) {
        Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "' has type '" + T.getAsString() +
                                           "'; '#pragma iopoly disk_resident' needs an array or pointer");
        continue;
      }
      annotate(CI.getASTContext(), V, N.Name);
    }
    It = Pending.erase(It);
  }
}

void DiskResidentDecls::HandleTranslationUnit(ASTContext &Ctx) {
  DiagnosticsEngine &Diags = CI.getDiagnostics();
  TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
  for (const DiskResidentPragma &P : pendingPragmas()) {
    for (const PragmaName &N : P.Names) {
      DeclContextLookupResult R = TU->lookup(DeclarationName(&Ctx.Idents.get(N.Name)));
      VarDecl *V = nullptr;
      for (NamedDecl *D : R)
        if (auto *VD = dyn_cast<VarDecl>(D))
          V = VD;
      if (!V) {
        Diags.Report(N.Loc, errorID()) << ("unknown global array '" + N.Name + "' in '#pragma iopoly disk_resident'");
        continue;
      }
      QualType T = V->getType();
      if (!T->isArrayType()) {
        Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "' has type '" + T.getAsString() +
                                           "'; a file-scope '#pragma iopoly disk_resident' needs a global array");
        continue;
      }
      if (!isa<ConstantArrayType>(Ctx.getAsArrayType(T))) {
        Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "' has no known size; declare it with its dimensions");
        continue;
      }
      if (T.isConstQualified()) {
        Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "' is const: read-only data cannot be disk-resident");
        continue;
      }
      if (V->getTLSKind() != VarDecl::TLS_None) {
        Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "' is thread-local and cannot be disk-resident");
        continue;
      }
      registerDiskResidentGlobal(N.Name);
      // Also in the IR itself (llvm.global.annotations) when the global is
      // emitted after this point, so that saved IR can be run through opt.
      annotate(Ctx, V, N.Name);
    }
  }
  pendingPragmas().clear();
}

} // namespace iopoly
