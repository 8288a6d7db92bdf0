// What each failure costs a replicated scheduler (docs/high-availability.md
// #what-each-failure-costs), on three real replicas and a real 3-member etcd
// (replica_cluster.h):
// - the leader stopped (SIGSTOP) for twice its lease TTL, then continued:
//   another replica leads meanwhile, the old one steps down, comes back a
//   follower, and a write sent to it while it was stopped is never
//   acknowledged nor visible anywhere;
// - one etcd member killed: writes go on being acknowledged by the same
//   leader in the same epoch;
// - the etcd quorum lost: the leader stops acknowledging within its TTL, and
//   serving resumes once the members are back;
// - a follower killed and its data wiped: restarted, it bootstraps from the
//   leader's checkpoint, rejoins the in-sync set (`taskboard admin ha
//   status` says so) and holds every run, serving them once it leads.

#include <signal.h>

#include <chrono>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/json.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/ha/replica_calls.h"
#include "tests/ha/replica_cluster.h"
#include "tests/testing/cluster.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using testing::ReplicaCluster;

// The default --ha-lease-ttl, on an etcd tuned as the `ha` overlay runs it
// (heartbeat 50 ms, election timeout 500 ms). A leader keeps its term
// through the loss of etcd's raft leader only when etcd elects anew (up to
// two election timeouts) within the part of the TTL its keepalives leave
// (TTL - margin - one keepalive interval: 2 s here). With etcd's default
// 1 s election timeout that took all of it under CI load, and the leader
// stepped down (docs/high-availability.md#etcd-settings).
constexpr absl::Duration kLeaseTtl = absl::Seconds(3);
constexpr int kEtcdHeartbeatMs = 50;
constexpr int kEtcdElectionMs = 500;
const std::string kFlow = testing::OnePhaseFlow("a", "echo", "echo hi");

class ReplicaFailuresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::StartReplicasOrSkip(
        {.lease_ttl = absl::StrCat(absl::ToInt64Seconds(kLeaseTtl), "s"),
         .etcd = {.heartbeat_ms = kEtcdHeartbeatMs, .election_ms = kEtcdElectionMs}},
        &cluster_);
    if (cluster_ == nullptr) return;  // skipped or failed
    std::optional<int> leader = cluster_->WaitForOneLeader(absl::Seconds(30));
    ASSERT_TRUE(leader.has_value()) << "no single leader" << cluster_->Logs();
    leader_ = *leader;
    ASSERT_TRUE(cluster_->WaitForInSyncSet(leader_, absl::Seconds(20)).ok());
  }

  // A keyed submit to replica `i` (2 s deadline): acknowledged or not.
  bool SubmitTo(int i, const std::string& key, std::string* run_id = nullptr) {
    v1::SubmitRunResponse response;
    const bool ok =
        testing::SubmitKeyed(*cluster_->Client(i), kFlow, key, absl::Seconds(2), &response).ok();
    if (ok && run_id != nullptr) *run_id = response.run_id();
    return ok;
  }

  // Submits under `key` to each running replica in turn until one
  // acknowledges (restarting replicas that stepped down); which one.
  std::optional<int> SubmitToAny(const std::string& key, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      if (!cluster_->RestartExited().ok()) return std::nullopt;
      for (int i = 0; i < cluster_->size(); ++i) {
        if (cluster_->Running(i) && SubmitTo(i, key)) return i;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::nullopt;
  }

  std::optional<double> Epoch(int i) {
    return cluster_->Sample(i, "taskboard_scheduler_ha_epoch");
  }

  // The runs labelled key=`key` on replica `i`.
  int RunsWithKey(int i, const std::string& key) {
    absl::StatusOr<std::vector<v1::Run>> runs = testing::ListAllRuns(*cluster_->Client(i));
    EXPECT_TRUE(runs.ok()) << runs.status();
    if (!runs.ok()) return -1;
    int found = 0;
    for (const v1::Run& run : *runs) {
      auto label = run.labels().find("key");
      if (label != run.labels().end() && label->second == key) ++found;
    }
    return found;
  }

  std::unique_ptr<ReplicaCluster> cluster_;
  int leader_ = 0;
};

TEST_F(ReplicaFailuresTest, LeaderStoppedForTwoTtls_StepsDown_WriteSentDuringStopNeverSeen) {
  // A channel already connected to the leader, so the submit below reaches
  // its socket while it is stopped.
  auto stopped_client = v1::Scheduler::NewStub(testing::TestChannel(cluster_->Address(leader_)));
  v1::SubmitRunResponse before;
  ASSERT_TRUE(
      testing::SubmitKeyed(*stopped_client, kFlow, "before-stop", absl::Seconds(5), &before).ok());

  cluster_->Signal(leader_, SIGSTOP);
  const absl::Time stopped = absl::Now();
  auto during = std::async(std::launch::async, [&] {
    v1::SubmitRunResponse response;
    return testing::SubmitKeyed(*stopped_client, kFlow, "during-stop", absl::Seconds(30),
                                &response);
  });
  std::optional<int> next = cluster_->WaitForOneLeader(absl::Seconds(20), leader_);
  ASSERT_TRUE(next.has_value()) << "no new leader while the old one was stopped"
                                << cluster_->Logs();
  EXPECT_GT(Epoch(*next).value_or(0), 0);
  std::string after_id;
  const absl::Time write_deadline = absl::Now() + absl::Seconds(10);
  while (!SubmitTo(*next, "while-stopped", &after_id) && absl::Now() < write_deadline) {
  }
  EXPECT_FALSE(after_id.empty()) << "the new leader acknowledged nothing" << cluster_->Logs();
  // Held for twice the TTL in all, then continued.
  absl::SleepFor(stopped + 2 * kLeaseTtl - absl::Now());
  const absl::Time continued = absl::Now();
  cluster_->Signal(leader_, SIGCONT);

  // It steps down at once (exits 3 for its supervisor to restart it).
  std::optional<int> exit_code = cluster_->WaitForExit(leader_, absl::Seconds(10));
  ASSERT_TRUE(exit_code.has_value()) << "the old leader did not step down" << cluster_->Logs();
  EXPECT_EQ(*exit_code, 3);
  std::cout << "[ha] the stopped leader stepped down "
            << absl::ToInt64Milliseconds(absl::Now() - continued) << " ms after SIGCONT\n";
  EXPECT_TRUE(absl::StrContains(ReadFileOrEmpty(cluster_->File(leader_, "log").string()),
                                "stepped down: "));
  // The write it got while stopped was never acknowledged.
  ASSERT_EQ(during.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  const grpc::Status during_status = during.get();
  EXPECT_FALSE(during_status.ok()) << "a stopped, deposed leader acknowledged a write";

  // Restarted, it is a follower, and says so.
  ASSERT_TRUE(cluster_->StartReplica(leader_).ok()) << cluster_->Logs();
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (cluster_->Sample(leader_, R"(taskboard_scheduler_ha_role{role="follower"})") != 1 &&
         absl::Now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(cluster_->Sample(leader_, R"(taskboard_scheduler_ha_role{role="follower"})"), 1);
  EXPECT_NE(cluster_->Get(leader_, "/readyz"), 200);
  EXPECT_EQ(cluster_->WaitForOneLeader(absl::Seconds(5)), next);

  // Nothing of the write sent during the stop anywhere; the rest is there.
  EXPECT_EQ(RunsWithKey(*next, "during-stop"), 0);
  EXPECT_EQ(RunsWithKey(*next, "before-stop"), 1);
  EXPECT_EQ(RunsWithKey(*next, "while-stopped"), 1);
  // The old leader, now following, holds what the new one wrote: kill the
  // new leader, and whoever leads next (only in-sync replicas may) still has
  // no trace of that write.
  std::optional<double> written = cluster_->Sample(*next, "taskboard_scheduler_ha_applied_index");
  const absl::Time caught_up = absl::Now() + absl::Seconds(20);
  while (cluster_->Sample(leader_, "taskboard_scheduler_ha_applied_index").value_or(0) <
             written.value_or(1) &&
         absl::Now() < caught_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  cluster_->Kill(*next);
  std::optional<int> third = SubmitToAny("after-second-failover", absl::Seconds(30));
  ASSERT_TRUE(third.has_value()) << "no leader after the second failover" << cluster_->Logs();
  EXPECT_EQ(RunsWithKey(*third, "during-stop"), 0);
  EXPECT_EQ(RunsWithKey(*third, "before-stop"), 1);
  EXPECT_EQ(RunsWithKey(*third, "while-stopped"), 1);
}

TEST_F(ReplicaFailuresTest, OneEtcdMemberKilled_WritesGoOnInTheSameEpoch) {
  const std::optional<double> epoch = Epoch(leader_);
  ASSERT_TRUE(epoch.has_value());
  absl::StatusOr<int> etcd_leader = cluster_->etcd().LeaderIndex();
  ASSERT_TRUE(etcd_leader.ok()) << etcd_leader.status();
  // A member that is not etcd's raft leader, then (once it is back) the
  // raft leader itself.
  for (int member : {(*etcd_leader + 1) % 3, *etcd_leader}) {
    SCOPED_TRACE(absl::StrCat("etcd member ", member));
    cluster_->etcd().Kill(member);
    const absl::Time killed = absl::Now();
    absl::Duration longest_gap;
    absl::Time last_ack = killed;
    int acked = 0;
    for (int n = 0; absl::Now() < killed + 3 * kLeaseTtl; ++n) {
      if (SubmitTo(leader_, absl::StrCat("etcd-", member, "-", n))) {
        longest_gap = std::max(longest_gap, absl::Now() - last_ack);
        last_ack = absl::Now();
        ++acked;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::cout << "[ha] etcd member " << member << (member == *etcd_leader ? " (raft leader)" : "")
              << " killed: " << acked << " writes acknowledged in "
              << absl::FormatDuration(3 * kLeaseTtl) << ", longest gap "
              << absl::ToInt64Milliseconds(longest_gap) << " ms\n";
    EXPECT_GT(acked, 10);
    EXPECT_LT(longest_gap, absl::Milliseconds(2500));
    EXPECT_EQ(cluster_->WaitForOneLeader(absl::Seconds(5)), leader_) << cluster_->Logs();
    EXPECT_EQ(Epoch(leader_), epoch);
    ASSERT_TRUE(cluster_->etcd().Restart(member).ok()) << cluster_->etcd().Logs();
    ASSERT_TRUE(cluster_->etcd().WaitHealthy(absl::Seconds(20)).ok()) << cluster_->etcd().Logs();
  }
}

TEST_F(ReplicaFailuresTest, EtcdQuorumLost_LeaderStopsWithinTtl_ServesAgainWhenItReturns) {
  absl::StatusOr<int> etcd_leader = cluster_->etcd().LeaderIndex();
  ASSERT_TRUE(etcd_leader.ok()) << etcd_leader.status();
  // etcd's raft leader and one more: keepalives fail at once (a surviving
  // raft leader would renew leases until its CheckQuorum, about 1.4 s more).
  const int lost[] = {*etcd_leader, (*etcd_leader + 1) % 3};
  std::string before_id;
  ASSERT_TRUE(SubmitTo(leader_, "before-quorum-loss", &before_id));
  for (int member : lost) cluster_->etcd().Kill(member);
  const absl::Time lost_at = absl::Now();

  // Probe the leader until well past its TTL: acknowledgements stop.
  std::optional<absl::Time> last_ack;
  for (int n = 0; absl::Now() < lost_at + 2 * kLeaseTtl + absl::Seconds(1); ++n) {
    if (cluster_->Running(leader_) && SubmitTo(leader_, absl::StrCat("quorum-lost-", n))) {
      last_ack = absl::Now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const absl::Duration acked_for = last_ack.has_value() ? *last_ack - lost_at : absl::ZeroDuration();
  std::cout << "[ha] etcd quorum lost: the leader acknowledged writes for "
            << absl::ToInt64Milliseconds(acked_for) << " ms (--ha-lease-ttl "
            << absl::FormatDuration(kLeaseTtl) << ")\n";
  EXPECT_LE(acked_for, kLeaseTtl);
  // Nobody else acknowledges either.
  for (int i = 0; i < cluster_->size(); ++i) {
    if (cluster_->Running(i)) EXPECT_FALSE(SubmitTo(i, "no-quorum")) << "replica s" << i;
  }

  // The quorum returns: some replica serves again (the old leader may have
  // stepped down and been restarted), with every earlier write.
  for (int member : lost) ASSERT_TRUE(cluster_->etcd().Restart(member).ok());
  const absl::Time restarted = absl::Now();
  std::optional<int> serving = SubmitToAny("after-quorum", absl::Seconds(60));
  ASSERT_TRUE(serving.has_value()) << "no replica served after the quorum returned"
                                   << cluster_->Logs() << cluster_->etcd().Logs();
  std::cout << "[ha] etcd quorum back: a write acknowledged "
            << absl::ToInt64Milliseconds(absl::Now() - restarted)
            << " ms after the two members restarted\n";
  EXPECT_EQ(RunsWithKey(*serving, "before-quorum-loss"), 1);
  EXPECT_EQ(RunsWithKey(*serving, "no-quorum"), 0);
}

TEST_F(ReplicaFailuresTest, FollowerWiped_RejoinsByCheckpoint_HoldsEveryRun) {
  // A leader's in-memory log starts with its term: after a failover it no
  // longer holds the first batches, so a wiped follower must bootstrap from
  // a checkpoint (with the whole log, it would just replay it).
  std::string first_id;
  ASSERT_TRUE(SubmitTo(leader_, "first-term", &first_id));
  cluster_->Kill(leader_);
  std::optional<int> next = cluster_->WaitForOneLeader(absl::Seconds(20), leader_);
  ASSERT_TRUE(next.has_value()) << cluster_->Logs();
  ASSERT_TRUE(cluster_->StartReplica(leader_).ok()) << cluster_->Logs();
  leader_ = *next;
  absl::StatusOr<ha::InSyncSet> set = cluster_->WaitForInSyncSet(leader_, absl::Seconds(20));
  ASSERT_TRUE(set.ok()) << set.status();
  const int in_sync = set->replicas.front().back() - '0';
  const int wiped = 3 - leader_ - in_sync;
  std::vector<std::string> run_ids = {first_id};
  for (int n = 0; n < 5; ++n) {
    std::string run_id;
    ASSERT_TRUE(SubmitTo(leader_, absl::StrCat("before-wipe-", n), &run_id));
    run_ids.push_back(run_id);
  }

  cluster_->Kill(wiped);
  ASSERT_TRUE(cluster_->Wipe(wiped).ok());
  for (int n = 0; n < 5; ++n) {
    std::string run_id;
    ASSERT_TRUE(SubmitTo(leader_, absl::StrCat("while-wiped-", n), &run_id));
    run_ids.push_back(run_id);
  }
  ASSERT_TRUE(cluster_->StartReplica(wiped).ok()) << cluster_->Logs();
  // Only it can replace the in-sync follower once that one is gone.
  cluster_->Kill(in_sync);
  absl::StatusOr<ha::InSyncSet> rejoined =
      cluster_->WaitForInSyncSet(leader_, absl::Seconds(30), cluster_->ReplicaId(in_sync));
  ASSERT_TRUE(rejoined.ok()) << rejoined.status();
  EXPECT_EQ(rejoined->replicas, std::vector<std::string>{cluster_->ReplicaId(wiped)});
  const std::string log = ReadFileOrEmpty(cluster_->File(wiped, "log").string());
  EXPECT_TRUE(absl::StrContains(log, "installed a checkpoint from the leader")) << log;

  // `taskboard admin ha status` shows it in sync.
  const std::string output = (cluster_->dir() / "ha-status.out").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> cli = ChildProcess::Spawn(
      {testing::BinaryPath("taskboard"), "admin", "ha", "status", "--json", "--scheduler",
       cluster_->Addresses()},
      output);
  ASSERT_TRUE(cli.ok()) << cli.status();
  ASSERT_EQ((*cli)->WaitFor(30'000), 0) << ReadFileOrEmpty(output);
  const Json status = Json::parse(ReadFileOrEmpty(output), nullptr, false);
  ASSERT_TRUE(status.contains("replicas")) << ReadFileOrEmpty(output);
  EXPECT_EQ(status["replicas"][leader_].value("inSync", Json::array()),
            Json::array({cluster_->ReplicaId(wiped)}))
      << ReadFileOrEmpty(output);
  EXPECT_EQ(status["replicas"][wiped].value("role", ""), "follower") << ReadFileOrEmpty(output);

  // Kill the leader: the wiped replica, the only one left, leads with every run.
  std::string last_id;
  ASSERT_TRUE(SubmitTo(leader_, "last-before-kill", &last_id));
  run_ids.push_back(last_id);
  cluster_->Kill(leader_);
  next = cluster_->WaitForOneLeader(absl::Seconds(20), leader_);
  ASSERT_EQ(next, wiped) << cluster_->Logs();
  for (const std::string& run_id : run_ids) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::GetRunResponse response;
    const grpc::Status got = cluster_->Client(wiped)->GetRun(&context, request, &response);
    EXPECT_TRUE(got.ok()) << run_id << ": " << got.error_message();
  }
}

}  // namespace
}  // namespace taskboard
