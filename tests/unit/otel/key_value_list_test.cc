// The key=value lists of OTEL_RESOURCE_ATTRIBUTES and
// OTEL_EXPORTER_OTLP_HEADERS.

#include "common/otel/key_value_list.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::otel {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Pair;

TEST(ParseKeyValueList, MembersWithWhitespaceAndEmptyOnes) {
  absl::StatusOr<KeyValueList> list = ParseKeyValueList(" a = 1 ,, b=two=2 ,");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(*list, ElementsAre(Pair("a", "1"), Pair("b", "two=2")));
}

TEST(ParseKeyValueList, ValuesArePercentDecoded) {
  absl::StatusOr<KeyValueList> list = ParseKeyValueList("k=a%2Cb%3dc%20d");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(*list, ElementsAre(Pair("k", "a,b=c d")));
}

TEST(ParseKeyValueList, EmptyValue_IsKept) {
  absl::StatusOr<KeyValueList> list = ParseKeyValueList("k=");
  ASSERT_TRUE(list.ok());
  EXPECT_THAT(*list, ElementsAre(Pair("k", "")));
}

TEST(ParseKeyValueList, MemberWithoutEqualsOrKey_IsInvalid) {
  EXPECT_THAT(ParseKeyValueList("a=1,b"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseKeyValueList("=1"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(PercentDecode, BadEscapes_AreInvalid) {
  EXPECT_THAT(PercentDecode("%"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PercentDecode("a%2"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PercentDecode("%zz"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(*PercentDecode("%41%62"), "Ab");
}

}  // namespace
}  // namespace taskboard::otel
