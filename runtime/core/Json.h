//===- Json.h - Minimal JSON writer ------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Enough JSON to write the statistics object: objects, arrays, strings,
// numbers and booleans, with commas placed automatically.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_JSON_H
#define IOPOLY_RUNTIME_JSON_H

#include <string>
#include <vector>

namespace iopoly {

class JsonWriter {
public:
  JsonWriter &beginObject() { return open('{'); }
  JsonWriter &endObject() { return close('}'); }
  JsonWriter &beginArray() { return open('['); }
  JsonWriter &endArray() { return close(']'); }
  JsonWriter &key(const std::string &K);
  JsonWriter &value(const std::string &S);
  JsonWriter &value(const char *S) { return value(std::string(S)); }
  JsonWriter &value(unsigned long long N);
  JsonWriter &value(long long N);
  JsonWriter &value(double D);
  JsonWriter &value(bool B);
  /// Inserts already-serialized JSON (e.g. a nested object).
  JsonWriter &raw(const std::string &Json);
  const std::string &str() const { return Out; }

private:
  JsonWriter &open(char C);
  JsonWriter &close(char C);
  void separate();
  std::string Out;
  std::vector<bool> First; // per open container: no element written yet
  bool AfterKey = false;
};

/// Escapes \p S as a JSON string literal, quotes included.
std::string jsonQuote(const std::string &S);

} // namespace iopoly

#endif
