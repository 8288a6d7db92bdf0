// The one nesting limit: JSON and YAML deeper than --max-json-depth are one
// clear error naming the limit and the path, never a stack overflow.

#include "common/json_depth.h"

#include <string>

#include "common/json.h"
#include "common/yaml_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

std::string Nested(char open, int depth) {
  const char close = open == '[' ? ']' : '}';
  std::string text;
  for (int i = 0; i < depth; ++i) text += open == '[' ? "[" : "{\"k\":";
  text += "1";
  for (int i = 0; i < depth; ++i) text += close;
  return text;
}

// Restores the process-wide limit a test changed.
class JsonDepthTest : public ::testing::Test {
 protected:
  ~JsonDepthTest() override { (void)SetMaxJsonDepth(kDefaultMaxJsonDepth); }
};

TEST_F(JsonDepthTest, ParseJson_HundredThousandOpenBrackets_FailsNamingLimitAndPath) {
  const std::string hostile(100'000, '[');
  absl::StatusOr<Json> parsed = ParseJson(hostile);
  ASSERT_THAT(parsed.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(parsed.status().message(), HasSubstr("limit of 64 levels"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("--max-json-depth"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("at $[0][0][0]"));
}

TEST_F(JsonDepthTest, ParseJson_AtTheLimit_Parses) {
  EXPECT_THAT(ParseJson(Nested('[', 64)).status(), IsOk());
  EXPECT_THAT(ParseJson(Nested('{', 64)).status(), IsOk());
  EXPECT_THAT(ParseJson(Nested('[', 65)).status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(JsonDepthTest, ParseJson_PathNamesKeysAndIndexes) {
  ASSERT_THAT(SetMaxJsonDepth(3), IsOk());
  absl::StatusOr<Json> parsed = ParseJson(R"({"phases": [{"id": "a"}, {"args": {"x": [[1]]}}]})");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("at $.phases[1].args: "));
}

TEST_F(JsonDepthTest, ParseJson_BracketsInsideStringsDoNotCount) {
  ASSERT_THAT(SetMaxJsonDepth(2), IsOk());
  absl::StatusOr<Json> parsed = ParseJson(R"({"text": "[[[[{{{{ \"[[[[\" ]]"})");
  ASSERT_THAT(parsed.status(), IsOk());
  EXPECT_EQ((*parsed)["text"], "[[[[{{{{ \"[[[[\" ]]");
}

TEST_F(JsonDepthTest, ParseJson_OddKeysAreQuotedAndCutInThePath) {
  ASSERT_THAT(SetMaxJsonDepth(1), IsOk());
  const std::string long_key(100, 'k');
  absl::StatusOr<Json> parsed = ParseJson(R"({"a key": [1]})");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr(R"(at $["a key"])"));
  parsed = ParseJson(R"({")" + long_key + R"(": [1]})");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr(std::string(40, 'k') + "...\"]"));
}

TEST_F(JsonDepthTest, SetMaxJsonDepth_OutsideTheRange_IsRefused) {
  EXPECT_THAT(SetMaxJsonDepth(0), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SetMaxJsonDepth(kMaxJsonDepthCeiling + 1),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(MaxJsonDepth(), kDefaultMaxJsonDepth);
  ASSERT_THAT(SetMaxJsonDepth(100), IsOk());
  EXPECT_THAT(ParseJson(Nested('[', 100)).status(), IsOk());
}

TEST_F(JsonDepthTest, Yaml_HundredThousandFlowBrackets_FailsNamingTheLimit) {
  absl::StatusOr<Json> parsed = ParseYamlAsJson(std::string(100'000, '['));
  ASSERT_THAT(parsed.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(parsed.status().message(), HasSubstr("limit of 64 levels"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("--max-json-depth"));
}

TEST_F(JsonDepthTest, Yaml_DeeperThanTheLimit_NamesThePath) {
  ASSERT_THAT(SetMaxJsonDepth(3), IsOk());
  absl::StatusOr<Json> parsed = ParseYamlAsJson("phases:\n  - id: a\n  - args: {x: [[1]]}\n");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("at $.phases[1].args: "));
  EXPECT_THAT(ParseYamlAsJson("phases:\n  - id: a\n").status(), IsOk());
}

TEST_F(JsonDepthTest, Yaml_AliasesThatExpandExponentially_AreRefused) {
  // Nine levels of ten aliases each: a billion values from a few hundred bytes.
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) yaml += (j ? ", " : "") + prev;
    yaml += "]\n";
  }
  absl::StatusOr<Json> parsed = ParseYamlAsJson(yaml);
  ASSERT_THAT(parsed.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(parsed.status().message(), HasSubstr("aliases"));
}

}  // namespace
}  // namespace taskboard
