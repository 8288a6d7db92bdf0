#include "scheduler/triggers/event_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::triggers {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(EventArgsTest, MapEventArgs_PathsAndConstants_InOrder) {
  const Json payload = Json::parse(R"({"pull_request": {"number": 42, "head": {"sha": "abc"}}})");
  absl::StatusOr<Json> args = MapEventArgs({{"pr", *JsonPath::Parse("$.pull_request.number")},
                                            {"mode", Json("review")},
                                            {"head", *JsonPath::Parse("$.pull_request.head")}},
                                           payload);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(DumpJson(*args), R"({"pr":42,"mode":"review","head":{"sha":"abc"}})");
}

TEST(EventArgsTest, MapEventArgs_MissingField_NamesArgAndPath) {
  EXPECT_THAT(MapEventArgs({{"pr", *JsonPath::Parse("$.pull_request.number")}}, Json::object()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("arg 'pr': $.pull_request.number is not in the payload")));
}

}  // namespace
}  // namespace taskboard::triggers
