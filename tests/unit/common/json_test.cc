#include "common/json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ParseJson, KeepsObjectKeyOrder) {
  absl::StatusOr<Json> json = ParseJson(R"({"b": 1, "a": 2})");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(DumpJson(*json), R"({"b":1,"a":2})");
}

TEST(ParseJson, SyntaxError_IsInvalidArgument) {
  EXPECT_THAT(ParseJson("{"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON")));
}

TEST(ParseJson, NumberOutOfRange_IsInvalidArgumentNotAThrow) {
  EXPECT_THAT(ParseJson("[1e999]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON")));
}

}  // namespace
}  // namespace taskboard
