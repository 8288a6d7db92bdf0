#include "scheduler/flow/dsl_text.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

// Parses `text`, failing the test (and returning null) on error.
Json Parse(absl::string_view text, DslFormat format = DslFormat::kAuto) {
  absl::StatusOr<Json> doc = ParseDslText(text, format);
  EXPECT_THAT(doc, IsOk());
  return doc.ok() ? *std::move(doc) : Json();
}

TEST(ParseDslText, Json_ParsedAsIs) {
  EXPECT_EQ(Parse(R"({"a": [1, "x", null, true]})"), Json::parse(R"({"a": [1, "x", null, true]})"));
}

TEST(ParseDslText, Yaml_ScalarsFollowCoreSchema) {
  Json doc = Parse(R"(
int: 42
negative: -3
real: 1.5
exp: 1e3
yes_word: yes
on_word: on
bool: true
upper_bool: FALSE
null_word: null
tilde: ~
empty:
hex: 0x10
version: 1.2.3
)");
  EXPECT_EQ(doc["int"], Json(42));
  EXPECT_EQ(doc["negative"], Json(-3));
  EXPECT_EQ(doc["real"], Json(1.5));
  EXPECT_EQ(doc["exp"], Json(1000.0));
  EXPECT_EQ(doc["yes_word"], Json("yes"));  // YAML 1.2: not a boolean
  EXPECT_EQ(doc["on_word"], Json("on"));
  EXPECT_EQ(doc["bool"], Json(true));
  EXPECT_EQ(doc["upper_bool"], Json(false));
  EXPECT_TRUE(doc["null_word"].is_null());
  EXPECT_TRUE(doc["tilde"].is_null());
  EXPECT_TRUE(doc["empty"].is_null());
  EXPECT_EQ(doc["hex"], Json("0x10"));
  EXPECT_EQ(doc["version"], Json("1.2.3"));
}

TEST(ParseDslText, Yaml_QuotedScalars_StayStrings) {
  Json doc = Parse("a: \"true\"\nb: '42'\nc: \"null\"\nd: \"\"\n");
  EXPECT_EQ(doc["a"], Json("true"));
  EXPECT_EQ(doc["b"], Json("42"));
  EXPECT_EQ(doc["c"], Json("null"));
  EXPECT_EQ(doc["d"], Json(""));
}

TEST(ParseDslText, Yaml_KeysKeepDocumentOrder) {
  Json doc = Parse("zeta: 1\nalpha: 2\nmid: 3\n");
  std::vector<std::string> keys;
  for (const auto& [key, value] : doc.items()) keys.push_back(key);
  EXPECT_THAT(keys, ::testing::ElementsAre("zeta", "alpha", "mid"));
}

TEST(ParseDslText, Yaml_BlockScalar_KeepsNewlines) {
  Json doc = Parse("task: |\n  line one\n  line two\n");
  EXPECT_EQ(doc["task"], Json("line one\nline two\n"));
}

TEST(ParseDslText, Yaml_NonScalarKey_Rejected) {
  EXPECT_THAT(ParseDslText("? [a, b]\n: c\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("mapping keys must be plain strings")));
}

TEST(ParseDslText, Yaml_SyntaxError_ReportsLine) {
  // The unclosed `[` is noticed at the end of the input (line 5).
  EXPECT_THAT(
      ParseDslText("name: f\nphases:\n  - id: a\n    task: [unclosed\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid YAML at line 5, column 1")));
  EXPECT_THAT(
      ParseDslText("a: 1\n b: 2\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid YAML at line 2, column 3")));
}

TEST(ParseDslText, Json_SyntaxError_ReportsLineAndColumn) {
  EXPECT_THAT(ParseDslText("{\n  \"a\": 1,\n  \"b\": ]\n}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("invalid JSON at line 3, column 8: syntax error")));
}

TEST(ParseDslText, Json_SyntaxErrorOnFirstLine_ReportsColumn) {
  EXPECT_THAT(ParseDslText(R"({"a": tru})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON at line 1, ")));
}

TEST(ParseDslText, EmptyOrBlankText_Rejected) {
  for (const char* text : {"", "   ", "\n\t\n"}) {
    EXPECT_THAT(ParseDslText(text),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("flow text is empty: expected a JSON or YAML flow definition")))
        << "text: '" << text << "'";
  }
}

TEST(ParseDslText, Autodetect_LeadingBraceIsJson) {
  // Unquoted keys are fine in YAML but not in JSON: the error proves which
  // parser ran.
  EXPECT_THAT(ParseDslText("  \n {a: 1}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON")));
  EXPECT_EQ(Parse("{a: 1}", DslFormat::kYaml), Json::parse(R"({"a": 1})"));
}

TEST(ParseDslText, Autodetect_OtherwiseYaml) {
  EXPECT_EQ(Parse("# comment\na: 1\n"), Json::parse(R"({"a": 1})"));
  EXPECT_EQ(Parse("[1, 2]"), Json::parse("[1, 2]"));
}

TEST(ParseDslText, ExplicitJson_RejectsYaml) {
  EXPECT_THAT(ParseDslText("a: 1\n", DslFormat::kJson),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON at line 1")));
}

TEST(DslFormatFromPath, Extensions) {
  EXPECT_EQ(DslFormatFromPath("flows/review.json"), DslFormat::kJson);
  EXPECT_EQ(DslFormatFromPath("review.JSON"), DslFormat::kJson);
  EXPECT_EQ(DslFormatFromPath("review.yaml"), DslFormat::kYaml);
  EXPECT_EQ(DslFormatFromPath("review.yml"), DslFormat::kYaml);
  EXPECT_EQ(DslFormatFromPath("review.flow"), DslFormat::kAuto);
  EXPECT_EQ(DslFormatFromPath("-"), DslFormat::kAuto);
}

TEST(ParseDslText, JsonNumberOutOfRange_IsAnErrorNotACrash) {
  EXPECT_THAT(ParseDslText(R"({"name": 1e999})", DslFormat::kJson),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON")));
}

TEST(ParseDslText, InvalidUtf8_RejectedWithOffset) {
  // YAML would otherwise carry the bytes into proto string fields.
  EXPECT_THAT(ParseDslText("name: \"a\xff\"\nphases: []", DslFormat::kYaml),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not valid UTF-8 (first bad byte at offset 8)")));
}

}  // namespace
}  // namespace taskboard::flow
