// The table of `taskboard admin ha status` (tools/cli/ha_status_command.h):
// one row per replica named, the leader's in-sync set marking its followers,
// and replicas that did not answer shown with why.

#include "tools/cli/ha_status_command.h"

#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ReplicaAnswer Answered(const std::string& address, const std::string& id, const std::string& role,
                       uint64_t applied, uint64_t leader_last) {
  ReplicaAnswer answer;
  answer.address = address;
  ha::v1::ReplicaStatus status;
  status.set_replica_id(id);
  status.set_role(role);
  status.set_epoch(7);
  status.mutable_applied()->set_epoch(7);
  status.mutable_applied()->set_index(applied);
  status.set_leader_last_index(leader_last);
  answer.status = status;
  return answer;
}

TEST(HaStatusTable, LeaderFollowersAndTheUnreachable) {
  ReplicaAnswer leader = Answered("a:7233", "a", "leader", 120, 120);
  leader.status->add_in_sync("b");
  ReplicaAnswer behind = Answered("c:7233", "c", "follower", 100, 120);
  ReplicaAnswer gone{.address = "d:7233", .status = std::nullopt, .error = "connection refused"};
  std::ostringstream out;
  PrintHaStatus({leader, Answered("b:7233", "b", "follower", 120, 120), behind, gone},
                /*json=*/false, out);
  const std::string table = out.str();
  EXPECT_THAT(table, HasSubstr("ADDRESS  REPLICA  ROLE"));
  EXPECT_THAT(table, HasSubstr("a:7233   a        leader       7      7/120    0    -"));
  EXPECT_THAT(table, HasSubstr("b:7233   b        follower     7      7/120    0    yes"));
  EXPECT_THAT(table, HasSubstr("c:7233   c        follower     7      7/100    20   no"));
  EXPECT_THAT(table, HasSubstr("d:7233   -        unreachable\n"));
  EXPECT_THAT(table, HasSubstr("\nd:7233: connection refused\n"));
  EXPECT_THAT(table, Not(HasSubstr("no follower is in sync yet")));
}

TEST(HaStatusTable, LeaderWithoutInSyncFollower_SaysWritesWait) {
  std::ostringstream out;
  PrintHaStatus({Answered("a:7233", "a", "leader", 5, 5)}, /*json=*/false, out);
  EXPECT_THAT(out.str(), HasSubstr("no follower is in sync yet"));
}

TEST(HaStatusTable, Json_HasEveryReplicaWithItsAddress) {
  std::ostringstream out;
  PrintHaStatus({Answered("a:7233", "a", "leader", 5, 5),
                 ReplicaAnswer{.address = "d:7233", .status = std::nullopt, .error = "refused"}},
                /*json=*/true, out);
  EXPECT_THAT(out.str(), HasSubstr("\"address\": \"a:7233\""));
  EXPECT_THAT(out.str(), HasSubstr("\"role\": \"leader\""));
  EXPECT_THAT(out.str(), HasSubstr("\"error\": \"refused\""));
}

}  // namespace
}  // namespace taskboard::cli
