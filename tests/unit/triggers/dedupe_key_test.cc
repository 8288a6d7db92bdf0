#include "scheduler/triggers/dedupe_key.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::triggers {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Optional;

Event Delivery() {
  Event event;
  event.payload = {{"alert", {{"id", 991}, {"labels", {"a"}}}}};
  event.headers["x-github-delivery"] = "72d3162e-cc78-11e3-81ab-4c9367dc0958";
  return event;
}

TEST(DedupeKeyTest, Header_KeyNamesTriggerAndValue) {
  absl::StatusOr<std::optional<std::string>> key =
      DedupeKey("pr-review", {"X-GitHub-Delivery", std::nullopt}, Delivery());
  ASSERT_TRUE(key.ok());
  EXPECT_THAT(*key,
              Optional(std::string("trigger:pr-review:72d3162e-cc78-11e3-81ab-4c9367dc0958")));
}

TEST(DedupeKeyTest, PayloadField_NumberIsItsJson) {
  absl::StatusOr<std::optional<std::string>> key =
      DedupeKey("alerts", {"", *JsonPath::Parse("$.alert.id")}, Delivery());
  ASSERT_TRUE(key.ok());
  EXPECT_THAT(*key, Optional(std::string("trigger:alerts:991")));
}

TEST(DedupeKeyTest, NotConfigured_NoKey) {
  absl::StatusOr<std::optional<std::string>> key = DedupeKey("t", {}, Delivery());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(*key, std::nullopt);
}

TEST(DedupeKeyTest, MissingSource_IsRefused) {
  EXPECT_THAT(DedupeKey("t", {"X-Request-Id", std::nullopt}, Delivery()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("X-Request-Id is missing")));
  EXPECT_THAT(DedupeKey("t", {"", *JsonPath::Parse("$.alert.labels")}, Delivery()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a single value")));
}

TEST(DedupeKeyTest, LongValue_IsHashed) {
  Event event = Delivery();
  event.headers["x-github-delivery"] = std::string(500, 'x');
  absl::StatusOr<std::optional<std::string>> key =
      DedupeKey("t", {"X-GitHub-Delivery", std::nullopt}, event);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ((*key)->size(), std::string("trigger:t:").size() + 64);
}

}  // namespace
}  // namespace taskboard::triggers
