//===- DiskResidentDecls.h - Resolving #pragma iopoly names ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An AST consumer that runs before clang's code generator. A pragma inside
// a function body (or a lambda's, or a method's) names parameters or local
// pointers of the innermost one: they get an
// AnnotateAttr("iopoly.disk_resident:<name>") before the function is
// emitted, which codegen turns into llvm.var.annotation. A pragma outside
// functions names global arrays, resolved at the end of the translation unit
// as C++ looks names up from where the pragma is written (inside a namespace
// or class: from there outwards; "ns::A", "Class::member", "::A" qualified),
// including anonymous and inline namespaces and static data members. Each
// is handed to the IR passes by its symbol with its array name (C++ scopes
// joined by dots: grid::B is the array "grid.B") and its shape as declared
// (element size and dimensions, recorded in the array's file headers).
// Unknown names and names of the wrong kind are errors at the name's
// location.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_FRONTEND_DISKRESIDENTDECLS_H
#define IOPOLY_PLUGIN_FRONTEND_DISKRESIDENTDECLS_H

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"

namespace clang {
class VarDecl;
}

namespace iopoly {

struct DiskResidentPragma;
struct PragmaName;

class DiskResidentDecls : public clang::ASTConsumer {
public:
  explicit DiskResidentDecls(clang::CompilerInstance &CI) : CI(CI) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef DG) override;
  void HandleTranslationUnit(clang::ASTContext &Ctx) override;

private:
  void resolveInFunction(clang::FunctionDecl *FD, const DiskResidentPragma &P);
  /// The global named \p N (maybe qualified) as seen from where the pragma
  /// \p P is written; null after reporting an error.
  clang::VarDecl *lookupGlobal(clang::ASTContext &Ctx, const DiskResidentPragma &P, const PragmaName &N);
  clang::DiagnosticsEngine &Diags() { return CI.getDiagnostics(); }
  unsigned errorID();
  clang::CompilerInstance &CI;
};

} // namespace iopoly

#endif
