//===- PragmaHandler.cpp - #pragma iopoly -----------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Frontend/PragmaHandler.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;

namespace iopoly {

std::vector<DiskResidentPragma> &pendingPragmas() {
  static std::vector<DiskResidentPragma> P;
  return P;
}

IOPolyPragmaHandler::IOPolyPragmaHandler() : PragmaHandler("iopoly") {}

void IOPolyPragmaHandler::HandlePragma(Preprocessor &PP, PragmaIntroducer Introducer, Token &First) {
  DiagnosticsEngine &D = PP.getDiagnostics();
  auto Error = [&](const Token &At, const char *Msg) {
    D.Report(At.getLocation(), D.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << Msg;
    // Skip the rest of the directive.
    Token T = At;
    while (T.isNot(tok::eod) && T.isNot(tok::eof))
      PP.Lex(T);
  };
  Token Tok;
  PP.Lex(Tok);
  if (Tok.isNot(tok::identifier) || Tok.getIdentifierInfo()->getName() != "disk_resident")
    return Error(Tok, "unknown '#pragma iopoly' directive; expected 'disk_resident(names...)'");
  PP.Lex(Tok);
  if (Tok.isNot(tok::l_paren))
    return Error(Tok, "expected '(' after '#pragma iopoly disk_resident'");
  DiskResidentPragma P;
  P.Loc = First.getLocation();
  while (true) {
    // A name, maybe qualified: [::] identifier { :: identifier }
    PP.Lex(Tok);
    std::string Name;
    SourceLocation Loc = Tok.getLocation();
    if (Tok.is(tok::coloncolon)) {
      Name = "::";
      PP.Lex(Tok);
    }
    while (true) {
      if (Tok.isNot(tok::identifier))
        return Error(Tok, "expected the name of an array or pointer in '#pragma iopoly disk_resident'");
      Name += Tok.getIdentifierInfo()->getName().str();
      PP.Lex(Tok);
      if (Tok.isNot(tok::coloncolon))
        break;
      Name += "::";
      PP.Lex(Tok);
    }
    P.Names.push_back({Name, Loc});
    if (Tok.is(tok::r_paren))
      break;
    if (Tok.isNot(tok::comma))
      return Error(Tok, "expected ',' or ')' in '#pragma iopoly disk_resident'");
  }
  PP.Lex(Tok);
  if (Tok.isNot(tok::eod))
    return Error(Tok, "extra tokens at the end of '#pragma iopoly disk_resident'");
  pendingPragmas().push_back(std::move(P));
}

} // namespace iopoly
