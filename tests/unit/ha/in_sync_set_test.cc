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

}  // namespace
}  // namespace taskboard::ha
