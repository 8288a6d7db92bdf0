#include "scheduler/triggers/json_path.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::triggers {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

const Json kPayload = Json::parse(R"({"action": "opened",
  "pull_request": {"number": 42, "labels": [{"name": "bug"}, {"name": "ui"}]},
  "x-y": {"z": true}})");

TEST(JsonPathTest, Find_MemberAndIndexSteps_ReachTheValue) {
  EXPECT_EQ(*JsonPath::Parse("$.pull_request.number")->Find(kPayload), 42);
  EXPECT_EQ(*JsonPath::Parse("$.pull_request.labels[1].name")->Find(kPayload), "ui");
  EXPECT_EQ(*JsonPath::Parse("$['x-y'].z")->Find(kPayload), true);
  EXPECT_EQ(*JsonPath::Parse("$")->Find(kPayload), kPayload);
}

TEST(JsonPathTest, Find_MissingStep_IsNull) {
  EXPECT_EQ(JsonPath::Parse("$.pull_request.title")->Find(kPayload), nullptr);
  EXPECT_EQ(JsonPath::Parse("$.pull_request.labels[5]")->Find(kPayload), nullptr);
  EXPECT_EQ(JsonPath::Parse("$.action.more")->Find(kPayload), nullptr);
  EXPECT_EQ(JsonPath::Parse("$.action[0]")->Find(kPayload), nullptr);
}

TEST(JsonPathTest, Parse_ManyValueSelectors_AreRefusedSayingWhy) {
  EXPECT_THAT(JsonPath::Parse("$.labels[*]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("select many")));
  EXPECT_THAT(JsonPath::Parse("$.*"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("wildcards")));
  EXPECT_THAT(JsonPath::Parse("pull_request.number"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("starts with $")));
  EXPECT_THAT(JsonPath::Parse("$.a[0"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not closed")));
  EXPECT_THAT(JsonPath::Parse("$..a"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(JsonPathTest, LooksLikeJsonPath_OnlyDollarForms) {
  EXPECT_TRUE(LooksLikeJsonPath("$.a"));
  EXPECT_TRUE(LooksLikeJsonPath("$['a']"));
  EXPECT_TRUE(LooksLikeJsonPath("$"));
  EXPECT_FALSE(LooksLikeJsonPath("$5 off"));
  EXPECT_FALSE(LooksLikeJsonPath("review"));
}

}  // namespace
}  // namespace taskboard::triggers
