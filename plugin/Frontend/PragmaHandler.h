//===- PragmaHandler.h - #pragma iopoly ----------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Grammar:  #pragma iopoly disk_resident ( name { , name } )
//           name: [::] identifier { :: identifier }   (qualified in C++)
// The handler only parses; DiskResidentDecls resolves the names once the
// enclosing function (or the translation unit) has been parsed.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_FRONTEND_PRAGMAHANDLER_H
#define IOPOLY_PLUGIN_FRONTEND_PRAGMAHANDLER_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/Pragma.h"

#include <string>
#include <vector>

namespace iopoly {

struct PragmaName {
  std::string Name;
  clang::SourceLocation Loc;
};

struct DiskResidentPragma {
  clang::SourceLocation Loc; ///< of the 'iopoly' token
  std::vector<PragmaName> Names;
};

class IOPolyPragmaHandler : public clang::PragmaHandler {
public:
  IOPolyPragmaHandler();
  void handleDistribute(clang::Preprocessor &PP, clang::Token &First);
  void handleLayout(clang::Preprocessor &PP, clang::Token &First);
  void HandlePragma(clang::Preprocessor &PP, clang::PragmaIntroducer Introducer, clang::Token &First) override;
};

/// Pragmas parsed and not yet resolved (one compilation per process).
std::vector<DiskResidentPragma> &pendingPragmas();

} // namespace iopoly

#endif
