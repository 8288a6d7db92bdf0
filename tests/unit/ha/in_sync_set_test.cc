#include "scheduler/ha/in_sync_set.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::ha {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(InSyncSetTest, EncodeThenDecode_SameSet) {
  const InSyncSet set{42, "a", {"b", "c"}};
  absl::StatusOr<InSyncSet> decoded = DecodeInSyncSet(EncodeInSyncSet(set));
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(*decoded, set);
  EXPECT_EQ(EncodeInSyncSet(set), R"({"epoch":42,"leader":"a","replicas":["b","c"]})");
}

TEST(InSyncSetTest, Decode_NotASet_InvalidArgumentNamingTheShape) {
  EXPECT_THAT(DecodeInSyncSet("nope"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
  EXPECT_THAT(DecodeInSyncSet(R"({"epoch":"1","leader":"a","replicas":[]})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("want {epoch: int")));
  EXPECT_THAT(DecodeInSyncSet(R"({"epoch":1,"leader":"a","replicas":[3]})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a string")));
}

TEST(InSyncSetTest, Successor_IsEncodedOnlyWhenNamed_AndDecodedBack) {
  InSyncSet set{42, "a", {"b"}};
  set.successor = "b";
  set.successor_until = absl::FromUnixMillis(1'800'000'000'000);
  EXPECT_EQ(EncodeInSyncSet(set), R"({"epoch":42,"leader":"a","replicas":["b"],"successor":"b",)"
                                  R"("successor_until_ms":1800000000000})");
  absl::StatusOr<InSyncSet> decoded = DecodeInSyncSet(EncodeInSyncSet(set));
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(*decoded, set);
  EXPECT_THAT(DecodeInSyncSet(R"({"epoch":1,"leader":"a","replicas":[],"successor":"b"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("successor_until_ms")));
}

TEST(InSyncSetTest, MayCampaign_OnlyTheSuccessorWhileNamed_ThenTheUsualRule) {
  InSyncSet set{42, "a", {"b", "c"}};
  const absl::Time now = absl::FromUnixSeconds(1000);
  // No successor: the last leader and the members.
  EXPECT_TRUE(set.MayCampaign("a", now));
  EXPECT_TRUE(set.MayCampaign("c", now));
  EXPECT_FALSE(set.MayCampaign("d", now));
  // A handover to c: only c, until the window ends.
  set.successor = "c";
  set.successor_until = now + absl::Seconds(10);
  EXPECT_TRUE(set.MayCampaign("c", now));
  EXPECT_FALSE(set.MayCampaign("a", now));
  EXPECT_FALSE(set.MayCampaign("b", now));
  EXPECT_TRUE(set.MayCampaign("a", now + absl::Seconds(10)));
  EXPECT_TRUE(set.MayCampaign("b", now + absl::Seconds(11)));
  EXPECT_FALSE(set.MayCampaign("d", now + absl::Seconds(11)));
}

}  // namespace
}  // namespace taskboard::ha
