//===- MiniJson.h - A small JSON reader for checking the stats file -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Parses one JSON value (objects, arrays, strings with the escapes the
// runtime writes, numbers, true/false/null) so that the API tests check the
// IOPOLY_STATS file as JSON, not as text. Rejects trailing junk.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_MINIJSON_H
#define IOPOLY_TEST_MINIJSON_H

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace iopoly {
namespace test {

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object } K = Null;
  bool B = false;
  double N = 0;
  std::string S;
  std::vector<JsonValue> Items;
  std::map<std::string, JsonValue> Members;

  bool has(const std::string &Key) const { return K == Object && Members.count(Key); }
  const JsonValue &operator[](const std::string &Key) const {
    static const JsonValue Missing;
    auto It = Members.find(Key);
    return It == Members.end() ? Missing : It->second;
  }
};

class JsonReader {
public:
  /// Parses \p Text into \p Out; false (with Error set) when malformed.
  bool parse(const std::string &Text, JsonValue &Out) {
    T = &Text;
    P = 0;
    Error.clear();
    if (!value(Out))
      return false;
    skip();
    if (P != T->size())
      return fail("trailing characters");
    return true;
  }
  std::string Error;

private:
  bool fail(const std::string &Why) {
    if (Error.empty())
      Error = Why + " at offset " + std::to_string(P);
    return false;
  }
  void skip() {
    while (P < T->size() && (*T)[P] <= ' ')
      ++P;
  }
  bool literal(const char *L) {
    size_t N = std::char_traits<char>::length(L);
    if (T->compare(P, N, L) != 0)
      return fail(std::string("expected ") + L);
    P += N;
    return true;
  }
  bool string(std::string &Out) {
    if ((*T)[P] != '"')
      return fail("expected a string");
    ++P;
    while (P < T->size() && (*T)[P] != '"') {
      char C = (*T)[P++];
      if (C != '\\') {
        Out += C;
        continue;
      }
      if (P >= T->size())
        return fail("bad escape");
      char E = (*T)[P++];
      switch (E) {
      case '"': case '\\': case '/': Out += E; break;
      case 'n': Out += '\n'; break;
      case 't': Out += '\t'; break;
      case 'r': Out += '\r'; break;
      case 'b': Out += '\b'; break;
      case 'f': Out += '\f'; break;
      case 'u':
        if (P + 4 > T->size())
          return fail("bad \\u escape");
        Out += static_cast<char>(std::strtol(T->substr(P, 4).c_str(), nullptr, 16));
        P += 4;
        break;
      default: return fail("bad escape");
      }
    }
    if (P >= T->size())
      return fail("unterminated string");
    ++P;
    return true;
  }
  bool value(JsonValue &V) {
    skip();
    if (P >= T->size())
      return fail("unexpected end");
    char C = (*T)[P];
    if (C == '{') {
      V.K = JsonValue::Object;
      ++P;
      skip();
      if (P < T->size() && (*T)[P] == '}')
        return ++P, true;
      while (true) {
        skip();
        std::string Key;
        if (!string(Key))
          return false;
        skip();
        if (P >= T->size() || (*T)[P] != ':')
          return fail("expected ':'");
        ++P;
        if (V.Members.count(Key))
          return fail("duplicate key '" + Key + "'");
        if (!value(V.Members[Key]))
          return false;
        skip();
        if (P < T->size() && (*T)[P] == ',') {
          ++P;
          continue;
        }
        if (P < T->size() && (*T)[P] == '}')
          return ++P, true;
        return fail("expected ',' or '}'");
      }
    }
    if (C == '[') {
      V.K = JsonValue::Array;
      ++P;
      skip();
      if (P < T->size() && (*T)[P] == ']')
        return ++P, true;
      while (true) {
        V.Items.emplace_back();
        if (!value(V.Items.back()))
          return false;
        skip();
        if (P < T->size() && (*T)[P] == ',') {
          ++P;
          continue;
        }
        if (P < T->size() && (*T)[P] == ']')
          return ++P, true;
        return fail("expected ',' or ']'");
      }
    }
    if (C == '"') {
      V.K = JsonValue::String;
      return string(V.S);
    }
    if (C == 't' || C == 'f') {
      V.K = JsonValue::Bool;
      V.B = C == 't';
      return literal(V.B ? "true" : "false");
    }
    if (C == 'n') {
      V.K = JsonValue::Null;
      return literal("null");
    }
    const char *Start = T->c_str() + P;
    char *End = nullptr;
    V.N = std::strtod(Start, &End);
    if (End == Start)
      return fail("expected a value");
    V.K = JsonValue::Number;
    P += static_cast<size_t>(End - Start);
    return true;
  }
  const std::string *T = nullptr;
  size_t P = 0;
};

} // namespace test
} // namespace iopoly

#endif
