#include "common/canonical_json.h"

#include "common/sha256.h"
#include "gtest/gtest.h"

namespace taskboard {
namespace {

TEST(CanonicalJson, KeyOrder_DoesNotMatter) {
  Json a = Json::parse(R"({"b": 1, "a": {"y": [1, 2], "x": null}})");
  Json b = Json::parse(R"({"a": {"x": null, "y": [1, 2]}, "b": 1})");
  EXPECT_EQ(CanonicalJson(a), CanonicalJson(b));
  EXPECT_EQ(CanonicalJson(a), R"({"a":{"x":null,"y":[1,2]},"b":1})");
}

TEST(CanonicalJson, ArrayOrder_Matters) {
  EXPECT_NE(CanonicalJson(Json::parse("[1,2]")), CanonicalJson(Json::parse("[2,1]")));
}

TEST(CanonicalJson, IntegralFloat_WrittenAsInteger) {
  EXPECT_EQ(CanonicalJson(Json::parse(R"({"n": 1.0})")), R"({"n":1})");
  EXPECT_EQ(CanonicalJson(Json::parse(R"({"n": 1.5})")), R"({"n":1.5})");
  EXPECT_EQ(CanonicalJson(Json::parse("0.1")), "0.1");
}

TEST(CanonicalJson, Strings_AreEscapedAndUtf8Kept) {
  EXPECT_EQ(CanonicalJson(Json("a\"b\n\xc3\xa9")), "\"a\\\"b\\n\xc3\xa9\"");
}

TEST(Sha256Hex, KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace taskboard
