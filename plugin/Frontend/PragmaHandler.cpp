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

/// `#pragma iopoly distribute` before a loop in a function body becomes the
/// statement `(void)__builtin_annotation(0, "iopoly.distribute");`, which
/// reaches the IR as an llvm.annotation call right before the loop; the
/// DistributeLoops passes turn it into loop metadata and remove it.
void IOPolyPragmaHandler::handleDistribute(Preprocessor &PP, Token &First) {
  Token Tok;
  PP.Lex(Tok);
  if (Tok.isNot(tok::eod)) {
    DiagnosticsEngine &D = PP.getDiagnostics();
    D.Report(Tok.getLocation(), D.getCustomDiagID(DiagnosticsEngine::Error, "%0"))
        << "extra tokens at the end of '#pragma iopoly distribute'";
    while (Tok.isNot(tok::eod) && Tok.isNot(tok::eof))
      PP.Lex(Tok);
    return;
  }
  static const char Zero[] = "0", Text[] = "\"iopoly.distribute\"";
  SourceLocation Loc = First.getLocation();
  auto Make = [&](tok::TokenKind K) {
    Token T;
    T.startToken();
    T.setKind(K);
    T.setLocation(Loc);
    T.setLength(0);
    return T;
  };
  std::vector<Token> Toks;
  Toks.push_back(Make(tok::l_paren));
  Toks.push_back(Make(tok::kw_void));
  Toks.push_back(Make(tok::r_paren));
  Token Id = Make(tok::identifier);
  Id.setIdentifierInfo(PP.getIdentifierInfo("__builtin_annotation"));
  Toks.push_back(Id);
  Toks.push_back(Make(tok::l_paren));
  Token Num = Make(tok::numeric_constant);
  Num.setLiteralData(Zero);
  Num.setLength(1);
  Toks.push_back(Num);
  Toks.push_back(Make(tok::comma));
  Token Str = Make(tok::string_literal);
  Str.setLiteralData(Text);
  Str.setLength(sizeof Text - 1);
  Toks.push_back(Str);
  Toks.push_back(Make(tok::r_paren));
  Toks.push_back(Make(tok::semi));
  auto Owned = std::make_unique<Token[]>(Toks.size());
  std::copy(Toks.begin(), Toks.end(), Owned.get());
  PP.EnterTokenStream(std::move(Owned), Toks.size(), /*DisableMacroExpansion=*/true, /*IsReinject=*/false);
}

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
  if (Tok.is(tok::identifier) && Tok.getIdentifierInfo()->getName() == "distribute")
    return handleDistribute(PP, First);
  if (Tok.isNot(tok::identifier) || Tok.getIdentifierInfo()->getName() != "disk_resident")
    return Error(Tok, "unknown '#pragma iopoly' directive; expected 'disk_resident(names...)' or 'distribute'");
  PP.Lex(Tok);
  if (Tok.isNot(tok::l_paren))
    return Error(Tok, "expected '(' after '#pragma iopoly disk_resident'");
  DiskResidentPragma P;
  P.Loc = First.getLocation();
  while (true) {
    PP.Lex(Tok);
    if (Tok.isNot(tok::identifier))
      return Error(Tok, "expected the name of an array or pointer in '#pragma iopoly disk_resident'");
    P.Names.push_back({Tok.getIdentifierInfo()->getName().str(), Tok.getLocation()});
    PP.Lex(Tok);
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
