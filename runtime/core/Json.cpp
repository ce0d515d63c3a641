//===- Json.cpp - Minimal JSON writer --------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Json.h"

#include <cmath>
#include <cstdio>

namespace iopoly {

std::string jsonQuote(const std::string &S) {
  std::string R = "\"";
  for (unsigned char C : S) {
    switch (C) {
    case '"': R += "\\\""; break;
    case '\\': R += "\\\\"; break;
    case '\n': R += "\\n"; break;
    case '\t': R += "\\t"; break;
    case '\r': R += "\\r"; break;
    default:
      if (C < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof Buf, "\\u%04x", C);
        R += Buf;
      } else {
        R += static_cast<char>(C);
      }
    }
  }
  return R + "\"";
}

void JsonWriter::separate() {
  if (AfterKey) {
    AfterKey = false;
    return;
  }
  if (!First.empty()) {
    if (!First.back())
      Out += ",";
    First.back() = false;
  }
}

JsonWriter &JsonWriter::open(char C) {
  separate();
  Out += C;
  First.push_back(true);
  return *this;
}

JsonWriter &JsonWriter::close(char C) {
  First.pop_back();
  Out += C;
  return *this;
}

JsonWriter &JsonWriter::key(const std::string &K) {
  separate();
  Out += jsonQuote(K) + ":";
  AfterKey = true;
  return *this;
}

JsonWriter &JsonWriter::value(const std::string &S) {
  separate();
  Out += jsonQuote(S);
  return *this;
}

JsonWriter &JsonWriter::value(unsigned long long N) {
  separate();
  Out += std::to_string(N);
  return *this;
}

JsonWriter &JsonWriter::value(long long N) {
  separate();
  Out += std::to_string(N);
  return *this;
}

JsonWriter &JsonWriter::value(double D) {
  separate();
  if (!std::isfinite(D)) {
    Out += "null";
    return *this;
  }
  char Buf[40];
  std::snprintf(Buf, sizeof Buf, "%.9g", D);
  Out += Buf;
  return *this;
}

JsonWriter &JsonWriter::value(bool B) {
  separate();
  Out += B ? "true" : "false";
  return *this;
}

JsonWriter &JsonWriter::raw(const std::string &Json) {
  separate();
  Out += Json;
  return *this;
}

} // namespace iopoly
