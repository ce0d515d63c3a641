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
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"

#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace iopoly {

namespace {

/// Local variables of a function body, in source order (not those of
/// lambdas nested in it, which are bodies of their own).
struct LocalCollector : RecursiveASTVisitor<LocalCollector> {
  std::vector<VarDecl *> Vars;
  bool VisitVarDecl(VarDecl *V) {
    if (!isa<ParmVarDecl>(V))
      Vars.push_back(V);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
};

/// A function-like body: a function, method, or lambda.
struct Body {
  FunctionDecl *F;
  SourceRange Range;
};

/// Every body in a declaration, lambdas included.
struct BodyCollector : RecursiveASTVisitor<BodyCollector> {
  std::vector<Body> Bodies;
  bool VisitFunctionDecl(FunctionDecl *F) {
    if (F->doesThisDeclarationHaveABody() && F->getBody())
      Bodies.push_back({F, F->getBody()->getSourceRange()});
    return true;
  }
  bool VisitLambdaExpr(LambdaExpr *L) {
    if (CXXMethodDecl *Op = L->getCallOperator())
      if (Op->getBody())
        Bodies.push_back({Op, Op->getBody()->getSourceRange()});
    return true;
  }
};

void annotateOne(ASTContext &Ctx, Decl *D, const std::string &Text) {
  for (const AnnotateAttr *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == Text)
      return;
  D->addAttr(AnnotateAttr::CreateImplicit(Ctx, Text, nullptr, 0));
}

/// Annotates every declaration of \p V (codegen reads the one it emits).
void annotate(ASTContext &Ctx, VarDecl *V, const std::string &Text) {
  for (VarDecl *R : V->redecls())
    annotateOne(Ctx, R, Text);
}

/// Declarations named \p Name directly in \p DC or in the anonymous and
/// inline namespaces inside it (whose members are visible there).
void lookIn(DeclContext *DC, DeclarationName Name, SmallVectorImpl<NamedDecl *> &Out) {
  for (NamedDecl *D : DC->lookup(Name))
    Out.push_back(D);
  for (Decl *D : DC->decls())
    if (auto *NS = dyn_cast<NamespaceDecl>(D))
      if (NS->isAnonymousNamespace() || NS->isInline())
        lookIn(NS, Name, Out);
}

/// Namespaces, classes and the file, around a pragma: the innermost whose
/// source range contains it.
struct ScopeFinder : RecursiveASTVisitor<ScopeFinder> {
  SourceManager &SM;
  SourceLocation At;
  DeclContext *Found;
  ScopeFinder(SourceManager &SM, SourceLocation At, DeclContext *TU) : SM(SM), At(At), Found(TU) {}
  bool contains(Decl *D) {
    SourceRange R = D->getSourceRange();
    return R.isValid() && SM.isPointWithin(At, R.getBegin(), R.getEnd());
  }
  bool TraverseNamespaceDecl(NamespaceDecl *NS) {
    if (!contains(NS))
      return true;
    Found = NS;
    return RecursiveASTVisitor::TraverseNamespaceDecl(NS);
  }
  bool TraverseCXXRecordDecl(CXXRecordDecl *RD) {
    if (!contains(RD))
      return true;
    Found = RD;
    return RecursiveASTVisitor::TraverseCXXRecordDecl(RD);
  }
  bool TraverseFunctionDecl(FunctionDecl *) { return true; }
  bool TraverseCXXMethodDecl(CXXMethodDecl *) { return true; }
};

/// The array name of a global: its qualified name with anonymous and
/// inline namespaces left out (as users write it) and "::" written "." (array names are file names).
std::string arrayNameOf(VarDecl *V) {
  std::vector<std::string> Parts{V->getNameAsString()};
  for (DeclContext *DC = V->getDeclContext(); DC && !DC->isTranslationUnit(); DC = DC->getParent()) {
    if (auto *NS = dyn_cast<NamespaceDecl>(DC)) {
      if (!NS->isAnonymousNamespace() && !NS->isInline())
        Parts.push_back(NS->getNameAsString());
    } else if (auto *RD = dyn_cast<RecordDecl>(DC)) {
      Parts.push_back(RD->getNameAsString());
    }
  }
  std::string Name;
  for (auto It = Parts.rbegin(); It != Parts.rend(); ++It)
    Name += (Name.empty() ? "" : ".") + *It;
  return Name;
}

} // namespace

unsigned DiskResidentDecls::errorID() {
  return CI.getDiagnostics().getCustomDiagID(DiagnosticsEngine::Error, "%0");
}

bool DiskResidentDecls::HandleTopLevelDecl(DeclGroupRef DG) {
  if (pendingPragmas().empty())
    return true;
  BodyCollector C;
  for (Decl *D : DG)
    C.TraverseDecl(D);
  if (C.Bodies.empty())
    return true;
  SourceManager &SM = CI.getSourceManager();
  // Each pragma belongs to the innermost body around it.
  std::vector<DiskResidentPragma> &Pending = pendingPragmas();
  for (auto It = Pending.begin(); It != Pending.end();) {
    const Body *Best = nullptr;
    for (const Body &B : C.Bodies)
      if (SM.isPointWithin(It->Loc, B.Range.getBegin(), B.Range.getEnd()) &&
          (!Best || SM.isBeforeInTranslationUnit(Best->Range.getBegin(), B.Range.getBegin())))
        Best = &B;
    if (!Best) {
      ++It;
      continue;
    }
    resolveInFunction(Best->F, *It);
    It = Pending.erase(It);
  }
  return true;
}

void DiskResidentDecls::resolveInFunction(FunctionDecl *FD, const DiskResidentPragma &P) {
  SourceManager &SM = CI.getSourceManager();
  DiagnosticsEngine &Diags = CI.getDiagnostics();
  LocalCollector Locals;
  Locals.TraverseStmt(FD->getBody());
  for (const PragmaName &N : P.Names) {
    if (N.Name.find("::") != std::string::npos) {
      Diags.Report(N.Loc, errorID()) << ("'" + N.Name + "': a '#pragma iopoly disk_resident' inside a function names "
                                         "its parameters or local pointers, which are not qualified");
      continue;
    }
    ValueDecl *Found = nullptr;
    for (ParmVarDecl *Parm : FD->parameters())
      if (Parm->getName() == N.Name)
        Found = Parm;
    // The nearest local of that name declared before the pragma wins.
    for (VarDecl *V : Locals.Vars)
      if (V->getName() == N.Name && SM.isBeforeInTranslationUnit(V->getLocation(), P.Loc))
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
    annotateOne(CI.getASTContext(), V, std::string(AnnotationPrefix) + N.Name);
  }
}

VarDecl *DiskResidentDecls::lookupGlobal(ASTContext &Ctx, const DiskResidentPragma &P, const PragmaName &N) {
  // The scope of the pragma: the namespace or class it is written in.
  ScopeFinder Scope(CI.getSourceManager(), P.Loc, Ctx.getTranslationUnitDecl());
  Scope.TraverseDecl(Ctx.getTranslationUnitDecl());
  llvm::StringRef Rest = N.Name;
  DeclContext *Start = Scope.Found;
  bool Rooted = Rest.consume_front("::");
  if (Rooted)
    Start = Ctx.getTranslationUnitDecl();
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Rest.split(Parts, "::");
  // The first part: as unqualified lookup, from the pragma's scope outwards.
  SmallVector<NamedDecl *, 4> Found;
  for (DeclContext *DC = Start; DC; DC = Rooted ? nullptr : DC->getParent()) {
    lookIn(DC, DeclarationName(&Ctx.Idents.get(Parts[0])), Found);
    if (!Found.empty())
      break;
  }
  for (size_t K = 1; K < Parts.size() && !Found.empty(); ++K) {
    DeclContext *Inner = nullptr;
    for (NamedDecl *D : Found) {
      if (auto *NS = dyn_cast<NamespaceDecl>(D))
        Inner = NS;
      else if (auto *RD = dyn_cast<CXXRecordDecl>(D))
        Inner = RD->getDefinition();
      else if (auto *TD = dyn_cast<TypedefNameDecl>(D))
        if (auto *RD = TD->getUnderlyingType()->getAsCXXRecordDecl())
          Inner = RD->getDefinition();
    }
    Found.clear();
    if (!Inner) {
      Diags().Report(N.Loc, errorID()) << ("'" + Parts[K - 1].str() + "' in '" + N.Name +
                                           "' is not a namespace or class");
      return nullptr;
    }
    lookIn(Inner, DeclarationName(&Ctx.Idents.get(Parts[K])), Found);
  }
  for (NamedDecl *D : Found)
    if (auto *V = dyn_cast<VarDecl>(D))
      return V;
  Diags().Report(N.Loc, errorID()) << ("unknown global array '" + N.Name + "' in '#pragma iopoly disk_resident'");
  return nullptr;
}

void DiskResidentDecls::HandleTranslationUnit(ASTContext &Ctx) {
  std::unique_ptr<MangleContext> Mangler(Ctx.createMangleContext());
  for (const DiskResidentPragma &P : pendingPragmas()) {
    for (const PragmaName &N : P.Names) {
      VarDecl *V = lookupGlobal(Ctx, P, N);
      if (!V)
        continue;
      // A static data member's definition (outside the class) has the size.
      if (VarDecl *Def = V->getDefinition())
        V = Def;
      QualType T = V->getType();
      if (!T->isArrayType()) {
        Diags().Report(N.Loc, errorID()) << ("'" + N.Name + "' has type '" + T.getAsString() +
                                             "'; a file-scope '#pragma iopoly disk_resident' needs a global array");
        continue;
      }
      if (!isa<ConstantArrayType>(Ctx.getAsArrayType(T))) {
        Diags().Report(N.Loc, errorID()) << ("'" + N.Name + "' has no known size; declare it with its dimensions");
        continue;
      }
      if (T.isConstQualified() || V->isConstexpr()) {
        Diags().Report(N.Loc, errorID()) << ("'" + N.Name + "' is const: read-only data cannot be disk-resident");
        continue;
      }
      if (V->getTLSKind() != VarDecl::TLS_None) {
        Diags().Report(N.Loc, errorID()) << ("'" + N.Name + "' is thread-local and cannot be disk-resident");
        continue;
      }
      if (V->isTemplated() || V->getTemplateSpecializationKind() != TSK_Undeclared) {
        Diags().Report(N.Loc, errorID()) << ("'" + N.Name + "' belongs to a template: only ordinary globals and "
                                             "static data members can be disk-resident");
        continue;
      }
      if (!V->hasGlobalStorage() || V->isLocalVarDecl()) {
        Diags().Report(N.Loc, errorID()) << ("'" + N.Name + "' is not a global variable");
        continue;
      }
      DiskResidentGlobal G;
      G.Name = arrayNameOf(V);
      // The shape as declared: dimensions, then the element's size.
      QualType E = T;
      while (const auto *AT = dyn_cast_or_null<ConstantArrayType>(Ctx.getAsArrayType(E))) {
        G.Shape.Dims.push_back(AT->getSize().getZExtValue());
        E = AT->getElementType();
      }
      G.Shape.ElemSize = Ctx.getTypeSizeInChars(E).getQuantity();
      if (Mangler->shouldMangleDeclName(V)) {
        llvm::raw_string_ostream OS(G.Symbol);
        Mangler->mangleName(GlobalDecl(V), OS);
      } else {
        G.Symbol = V->getName().str();
      }
      registerDiskResidentGlobal(G);
      // Also in the IR itself (llvm.global.annotations) when the global is
      // emitted after this point, so that saved IR can be run through opt.
      annotate(Ctx, V, annotationText(G.Name, G.Shape));
    }
  }
  pendingPragmas().clear();
}

} // namespace iopoly
