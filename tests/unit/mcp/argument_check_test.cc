#include "common/mcp/argument_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::mcp {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

const Json& Schema() {
  static const Json* schema =
      new Json{{"type", "object"},
               {"properties",
                {{"run_id", {{"type", "string"}, {"maxLength", 8}}},
                 {"wait", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}},
                 {"decision", {{"type", "string"}, {"enum", {"approve", "reject"}}}},
                 {"values", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}},
               {"required", {"run_id"}},
               {"additionalProperties", false}};
  return *schema;
}

TEST(CheckArguments, Valid_IsOk) {
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", "r1"}, {"wait", 3}, {"values", {{"a", "b"}}}}),
              IsOk());
}

TEST(CheckArguments, MissingRequired_NamesIt) {
  EXPECT_THAT(CheckArguments(Schema(), Json::object()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'run_id' is required")));
}

TEST(CheckArguments, WrongType_NamesTheArgumentAndType) {
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", 5}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'run_id' must be a string")));
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", "r"}, {"wait", "3"}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'wait' must be an integer")));
}

TEST(CheckArguments, OutOfRange_NamesTheBound) {
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", "r"}, {"wait", 11}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 10")));
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", "r"}, {"wait", -1}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least 0")));
}

TEST(CheckArguments, TooLong_IsRefused) {
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", "123456789"}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("longer than 8")));
}

TEST(CheckArguments, NotInEnum_ListsTheChoices) {
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", "r"}, {"decision", "maybe"}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[\"approve\",\"reject\"]")));
}

TEST(CheckArguments, UnknownArgument_ListsTheKnownOnes) {
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", "r"}, {"rm", true}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown argument 'rm'; the arguments are: run_id, wait")));
}

TEST(CheckArguments, NestedAdditionalProperties_AreChecked) {
  EXPECT_THAT(CheckArguments(Schema(), {{"run_id", "r"}, {"values", {{"a", 1}}}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("in 'values': argument 'a' must be a string")));
}

}  // namespace
}  // namespace taskboard::mcp
