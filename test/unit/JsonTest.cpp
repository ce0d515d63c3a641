//===- JsonTest.cpp - The statistics JSON writer --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Commas and colons land where JSON wants them at every nesting depth,
// strings are escaped (quotes, backslashes, control characters), numbers
// keep their sign and precision, and non-finite doubles become null.
//
//===----------------------------------------------------------------------===//
#include "core/Json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace iopoly;

TEST(Json, EmptyContainers) {
  EXPECT_EQ("{}", JsonWriter().beginObject().endObject().str());
  EXPECT_EQ("[]", JsonWriter().beginArray().endArray().str());
  JsonWriter W;
  W.beginObject().key("a").beginArray().endArray().key("o").beginObject().endObject().endObject();
  EXPECT_EQ("{\"a\":[],\"o\":{}}", W.str());
}

TEST(Json, CommasBetweenMembersAndElementsAtEveryDepth) {
  JsonWriter W;
  W.beginObject();
  W.key("n").value(1ULL);
  W.key("list").beginArray().value(1ULL).value(2ULL).beginObject().key("x").value(true).endObject().endArray();
  W.key("nested").beginObject().key("a").beginArray().beginArray().endArray().value(false).endArray().endObject();
  W.key("last").value("s");
  W.endObject();
  EXPECT_EQ("{\"n\":1,\"list\":[1,2,{\"x\":true}],\"nested\":{\"a\":[[],false]},\"last\":\"s\"}", W.str());
}

TEST(Json, StringsAreEscaped) {
  EXPECT_EQ("\"plain\"", jsonQuote("plain"));
  EXPECT_EQ("\"a\\\"b\"", jsonQuote("a\"b"));
  EXPECT_EQ("\"back\\\\slash\"", jsonQuote("back\\slash"));
  EXPECT_EQ("\"l1\\nl2\\tx\\r\"", jsonQuote("l1\nl2\tx\r"));
  EXPECT_EQ("\"\\u0001\\u001f\"", jsonQuote("\x01\x1f"));
  EXPECT_EQ("\"/disk0/\xc3\xa9\"", jsonQuote("/disk0/\xc3\xa9")) << "UTF-8 passes through";
  JsonWriter W;
  W.beginObject().key("we\"ird").value(std::string("v\\")).endObject();
  EXPECT_EQ("{\"we\\\"ird\":\"v\\\\\"}", W.str());
}

TEST(Json, NumbersKeepSignRangeAndPrecision) {
  JsonWriter W;
  W.beginArray();
  W.value(18446744073709551615ULL).value(-42LL).value(0.5).value(1e-9).value(123456789.0).value(0.0);
  W.endArray();
  EXPECT_EQ("[18446744073709551615,-42,0.5,1e-09,123456789,0]", W.str());
}

TEST(Json, NonFiniteDoublesBecomeNull) {
  JsonWriter W;
  W.beginArray()
      .value(std::numeric_limits<double>::quiet_NaN())
      .value(std::numeric_limits<double>::infinity())
      .value(-std::numeric_limits<double>::infinity())
      .endArray();
  EXPECT_EQ("[null,null,null]", W.str());
}

TEST(Json, RawInsertsSerializedJsonAsOneValue) {
  JsonWriter W;
  W.beginObject().key("a").value(1ULL).key("cfg").raw("{\"x\":1}").key("b").value(2ULL).endObject();
  EXPECT_EQ("{\"a\":1,\"cfg\":{\"x\":1},\"b\":2}", W.str());
  JsonWriter L;
  L.beginArray().raw("1").raw("[2]").endArray();
  EXPECT_EQ("[1,[2]]", L.str());
}
