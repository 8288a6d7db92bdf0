// The argument errors of `taskboard admin ha switchover` and `promote`
// (tools/cli/ha_failover_command.h), which need no scheduler: what is
// missing is named, and a cluster that does not answer exits 2 with how to
// name the replicas.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace taskboard::cli {
namespace {

using ::taskboard::cli::testing::Cli;
using ::testing::HasSubstr;

// A loopback port nothing listens on (the discard port).
constexpr char kNobody[] = "127.0.0.1:9";

TEST(HaPromoteArgs, NoReplica_IsAnArgumentError) {
  const auto result = Cli({"admin", "ha", "promote", "--force", "--scheduler", kNobody});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("replica is required"));
}

TEST(HaPromoteArgs, TwoReplicas_IsAnArgumentError) {
  const auto result = Cli({"admin", "ha", "promote", "--force", "s1", "s2"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("s2"));
}

TEST(HaSwitchoverArgs, EmptyTarget_SaysItNeedsAReplicaId) {
  const auto result = Cli({"admin", "ha", "switchover", "--to", "", "--scheduler", kNobody});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("--to needs a replica id"));
}

TEST(HaSwitchoverArgs, NoReplicaAnswers_ExitsTwoNamingTheAddresses) {
  const auto result = Cli({"admin", "ha", "switchover", "--scheduler", kNobody});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr("no replica answered"));
  EXPECT_THAT(result.err, HasSubstr(kNobody));
}

TEST(HaPromoteArgs, NoReplicaAnswers_ExitsTwo) {
  const auto result = Cli({"admin", "ha", "promote", "s1", "--scheduler", kNobody});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr("no replica answered"));
}

}  // namespace
}  // namespace taskboard::cli
