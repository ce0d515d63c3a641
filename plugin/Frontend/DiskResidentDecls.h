//===- DiskResidentDecls.h - Resolving #pragma iopoly names ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An AST consumer that runs before clang's code generator. A pragma inside
// a function body names parameters or local pointers of that function: they
// get an AnnotateAttr("iopoly.disk_resident:<name>") before the function is
// emitted, which codegen turns into llvm.var.annotation. A pragma at file
// scope names global arrays, resolved at the end of the translation unit and
// handed to the IR passes by name. Unknown names and names of the wrong kind
// are errors at the name's location.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_FRONTEND_DISKRESIDENTDECLS_H
#define IOPOLY_PLUGIN_FRONTEND_DISKRESIDENTDECLS_H

#include "clang/AST/ASTConsumer.h"

namespace clang {
class CompilerInstance;
}

namespace iopoly {

class DiskResidentDecls : public clang::ASTConsumer {
public:
  explicit DiskResidentDecls(clang::CompilerInstance &CI) : CI(CI) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef DG) override;
  void HandleTranslationUnit(clang::ASTContext &Ctx) override;

private:
  void resolveInFunction(clang::FunctionDecl *FD);
  unsigned errorID();
  clang::CompilerInstance &CI;
};

} // namespace iopoly

#endif
