//===- PragmaHandler.cpp - #pragma iopoly -----------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Frontend/PragmaHandler.h"
#include "Support/DiskResidentRegistry.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;

namespace iopoly {

/// `#pragma iopoly distribute` must be followed by a for loop. The marker
/// `(void)__builtin_annotation(0, "iopoly.distribute")` is put into the
/// loop's init clause (`for (int j = 0; ...)` becomes `for (int j =
/// ((void)..., 0); ...)`), so that it runs right before the loop wherever
/// the loop stands (also as the body of another loop) and reaches the IR as
/// an llvm.annotation call; DistributeMarksPass turns it into loop metadata.
void IOPolyPragmaHandler::handleDistribute(Preprocessor &PP, Token &First) {
  DiagnosticsEngine &D = PP.getDiagnostics();
  auto Error = [&](SourceLocation At, const char *Msg) {
    D.Report(At, D.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << Msg;
  };
  Token Tok;
  PP.Lex(Tok);
  if (Tok.isNot(tok::eod)) {
    Error(Tok.getLocation(), "extra tokens at the end of '#pragma iopoly distribute'");
    while (Tok.isNot(tok::eod) && Tok.isNot(tok::eof))
      PP.Lex(Tok);
  }
  std::vector<Token> Out, Init;
  PP.Lex(Tok);
  if (Tok.isNot(tok::kw_for)) {
    Error(First.getLocation(), "'#pragma iopoly distribute' must be followed by a for loop");
    PP.EnterToken(Tok, /*IsReinject=*/true);
    return;
  }
  Out.push_back(Tok);
  PP.Lex(Tok);
  if (Tok.isNot(tok::l_paren)) {
    Error(Tok.getLocation(), "expected '(' after 'for'");
    PP.EnterToken(Tok, true);
    return;
  }
  Out.push_back(Tok);
  int Depth = 0;
  while (true) {
    PP.Lex(Tok);
    if (Tok.isOneOf(tok::eof, tok::eod)) {
      Error(Tok.getLocation(), "unterminated for loop after '#pragma iopoly distribute'");
      return;
    }
    if (Depth == 0 && Tok.is(tok::semi))
      break;
    if (Tok.isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
      ++Depth;
    else if (Tok.isOneOf(tok::r_paren, tok::r_square, tok::r_brace))
      --Depth;
    Init.push_back(Tok);
  }
  Token Semi = Tok;
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
  std::vector<Token> Marker;
  Marker.push_back(Make(tok::l_paren));
  Marker.push_back(Make(tok::kw_void));
  Marker.push_back(Make(tok::r_paren));
  Token Id = Make(tok::identifier);
  Id.setIdentifierInfo(PP.getIdentifierInfo("__builtin_annotation"));
  Marker.push_back(Id);
  Marker.push_back(Make(tok::l_paren));
  Token Num = Make(tok::numeric_constant);
  Num.setLiteralData(Zero);
  Num.setLength(1);
  Marker.push_back(Num);
  Marker.push_back(Make(tok::comma));
  Token Str = Make(tok::string_literal);
  Str.setLiteralData(Text);
  Str.setLength(sizeof Text - 1);
  Marker.push_back(Str);
  Marker.push_back(Make(tok::r_paren));
  // The first top-level '=' of the init clause, and the end of its value.
  size_t Eq = Init.size(), End = Init.size();
  Depth = 0;
  for (size_t K = 0; K < Init.size(); ++K) {
    if (Init[K].isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
      ++Depth;
    else if (Init[K].isOneOf(tok::r_paren, tok::r_square, tok::r_brace))
      --Depth;
    else if (Depth == 0 && Eq == Init.size() && Init[K].is(tok::equal))
      Eq = K;
    else if (Depth == 0 && Eq < K && Init[K].is(tok::comma)) {
      End = K;
      break;
    }
  }
  if (Init.empty()) {
    Out.insert(Out.end(), Marker.begin(), Marker.end());
  } else {
    size_t From = Eq < Init.size() ? Eq + 1 : 0;
    Out.insert(Out.end(), Init.begin(), Init.begin() + static_cast<long>(From));
    Out.push_back(Make(tok::l_paren));
    Out.insert(Out.end(), Marker.begin(), Marker.end());
    Out.push_back(Make(tok::comma));
    Out.insert(Out.end(), Init.begin() + static_cast<long>(From), Init.begin() + static_cast<long>(End));
    Out.push_back(Make(tok::r_paren));
    Out.insert(Out.end(), Init.begin() + static_cast<long>(End), Init.end());
  }
  Out.push_back(Semi);
  auto Owned = std::make_unique<Token[]>(Out.size());
  std::copy(Out.begin(), Out.end(), Owned.get());
  PP.EnterTokenStream(std::move(Owned), Out.size(), /*DisableMacroExpansion=*/true, /*IsReinject=*/true);
}

/// `#pragma iopoly layout(V, 1, 0)`: the file layout of disk-resident
/// global V (paper 1, section 4), a permutation of its dimensions; checked
/// against the array's rank by FileLayoutPass.
void IOPolyPragmaHandler::handleLayout(Preprocessor &PP, Token &First) {
  DiagnosticsEngine &D = PP.getDiagnostics();
  Token Tok;
  auto Error = [&](const char *Msg) {
    D.Report(Tok.getLocation(), D.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << Msg;
    while (Tok.isNot(tok::eod) && Tok.isNot(tok::eof))
      PP.Lex(Tok);
  };
  PP.Lex(Tok);
  if (Tok.isNot(tok::l_paren))
    return Error("expected '(' after '#pragma iopoly layout'");
  PP.Lex(Tok);
  if (Tok.isNot(tok::identifier))
    return Error("expected the name of a disk-resident array in '#pragma iopoly layout(name, dims...)'");
  LayoutPragma P;
  P.Name = Tok.getIdentifierInfo()->getName().str();
  P.Where = First.getLocation().printToString(PP.getSourceManager());
  while (true) {
    PP.Lex(Tok);
    if (Tok.is(tok::r_paren))
      break;
    if (Tok.isNot(tok::comma))
      return Error("expected ',' or ')' in '#pragma iopoly layout'");
    PP.Lex(Tok);
    uint64_t V = 0;
    if (Tok.isNot(tok::numeric_constant) || !PP.parseSimpleIntegerLiteral(Tok, V))
      return Error("expected a dimension number in '#pragma iopoly layout(name, dims...)'");
    P.Perm.push_back(static_cast<unsigned>(V));
    // parseSimpleIntegerLiteral has lexed the next token already.
    if (Tok.is(tok::r_paren))
      break;
    if (Tok.isNot(tok::comma))
      return Error("expected ',' or ')' in '#pragma iopoly layout'");
    PP.EnterToken(Tok, /*IsReinject=*/true);
  }
  if (P.Perm.empty())
    return Error("'#pragma iopoly layout' needs the array's dimensions in file order, e.g. layout(V, 1, 0)");
  PP.Lex(Tok);
  if (Tok.isNot(tok::eod))
    return Error("extra tokens at the end of '#pragma iopoly layout'");
  registerLayoutPragma(P);
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
  if (Tok.is(tok::identifier) && Tok.getIdentifierInfo()->getName() == "layout")
    return handleLayout(PP, First);
  if (Tok.isNot(tok::identifier) || Tok.getIdentifierInfo()->getName() != "disk_resident")
    return Error(Tok, "unknown '#pragma iopoly' directive; expected 'disk_resident(names...)', 'layout(name, "
                      "dims...)' or 'distribute'");
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
