#include "common/failover/scheduler_targets.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::failover {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The targets of a value that must parse.
std::vector<std::string> Targets(absl::string_view value) {
  absl::StatusOr<std::vector<std::string>> targets = ParseSchedulerTargets(value);
  EXPECT_TRUE(targets.ok()) << targets.status();
  return targets.ok() ? *targets : std::vector<std::string>();
}

TEST(ParseSchedulerTargets, OneAddress_IsTheOnlyTarget) {
  EXPECT_THAT(Targets("127.0.0.1:7233"), ElementsAre("127.0.0.1:7233"));
}

TEST(ParseSchedulerTargets, CommaList_KeepsOrderTrimsAndDropsDuplicates) {
  EXPECT_THAT(Targets(" a:7233, b:7233 ,c:7233,a:7233"), ElementsAre("a:7233", "b:7233", "c:7233"));
}

TEST(ParseSchedulerTargets, TargetUri_PassesThroughWhole) {
  EXPECT_THAT(Targets("dns:///scheduler.taskboard:7233"),
              ElementsAre("dns:///scheduler.taskboard:7233"));
  // gRPC's own address list: balanced by the channel, not split here.
  EXPECT_THAT(Targets("ipv4:10.0.0.1:7233,10.0.0.2:7233"),
              ElementsAre("ipv4:10.0.0.1:7233,10.0.0.2:7233"));
}

TEST(ParseSchedulerTargets, IPv6Address_IsOneTarget) {
  EXPECT_THAT(Targets("[::1]:7233,[::1]:7234"), ElementsAre("[::1]:7233", "[::1]:7234"));
}

TEST(ParseSchedulerTargets, EmptyEntry_FailsNamingItsPosition) {
  EXPECT_THAT(ParseSchedulerTargets("a:1,,b:2"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("address 2 is empty")));
  EXPECT_THAT(ParseSchedulerTargets("  "),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--scheduler is empty")));
}

}  // namespace
}  // namespace taskboard::failover
