// Three real taskboard-scheduler processes as replicas of one replicated
// scheduler (docs/high-availability.md), elected through a real 3-member etcd
// on loopback, with a real taskboard-worker: exactly one leads; a follower
// refuses client calls naming the leader (gRPC trailer and detail, HTTP body
// and header); a run submitted to the leader completes; after the leader is
// SIGKILLed another replica leads within a deadline and serves the run and
// its events, which reached it by replication. And the commit path's
// promise (docs/high-availability.md#acknowledged-writes): with its in-sync
// follower stopped, the leader does not answer a SubmitRun until that
// follower holds the run (or, after --ha-sync-timeout, another follower that
// holds it replaced it in the in-sync set). Saved flows keep the same
// promise: a version the followers do not hold is not served.

#include <signal.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/json.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "scheduler/ha/in_sync_set.h"
#include "taskboard/v1/common.pb.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/ha/replica_cluster.h"
#include "tests/testing/prometheus_text.h"
#include "tests/testing/promtool.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kReplicas = 3;
// Short, so that a failover takes about two seconds (etcd's minimum TTL with
// the harness's 1 s election timeout is 1.5 s).
constexpr char kLeaseTtl[] = "2s";
// From the SIGKILL to a new leader answering /readyz: the TTL, etcd's expiry
// sweep, the campaign and the recovery, with room for a loaded machine.
constexpr auto kFailoverDeadline = std::chrono::seconds(20);

constexpr char kFlow[] = R"(
name: replicated
phases:
  - id: hello
    agent: echo
    task: echo replicated hello
)";

class ReplicatedSchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::StartReplicasOrSkip({.replicas = kReplicas, .lease_ttl = kLeaseTtl}, &cluster_);
  }

  int Get(int i, const std::string& path, std::string* body = nullptr) {
    return cluster_->Get(i, path, body);
  }
  std::optional<double> Sample(int i, const std::string& series) {
    return cluster_->Sample(i, series);
  }
  std::optional<int> WaitForOneLeader(std::chrono::seconds timeout, int not_this = -1) {
    return cluster_->WaitForOneLeader(absl::FromChrono(timeout), not_this);
  }
  std::unique_ptr<v1::Scheduler::Stub> Client(int i) { return cluster_->Client(i); }
  ChildProcess& Process(int i) { return *cluster_->replica(i); }
  std::string Logs() const { return cluster_->Logs(); }

  grpc::Status Submit(int i, grpc::ClientContext& context, v1::SubmitRunResponse& response) {
    v1::SubmitRunRequest request;
    request.mutable_source()->set_text(kFlow);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return Client(i)->SubmitRun(&context, request, &response);
  }

  absl::StatusOr<v1::Run> WaitForRun(int i, const std::string& run_id) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    v1::Run last;
    while (Clock::now() < deadline) {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
      v1::GetRunRequest request;
      request.set_run_id(run_id);
      v1::GetRunResponse response;
      if (Client(i)->GetRun(&context, request, &response).ok()) {
        last = response.run();
        if (last.status() == v1::RUN_STATUS_COMPLETED || last.status() == v1::RUN_STATUS_FAILED) {
          return last;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return absl::DeadlineExceededError(absl::StrCat("run ", run_id, " did not finish on replica ",
                                                    i, ": ", last.ShortDebugString(), "\n",
                                                    Logs()));
  }

  // Every event of the run, through WatchRun from the start to its end.
  absl::StatusOr<std::vector<v1::RunEvent>> Events(int i, const std::string& run_id) {
    v1::WatchRunRequest request;
    request.set_run_id(run_id);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    std::unique_ptr<v1::Scheduler::Stub> client = Client(i);
    auto reader = client->WatchRun(&context, request);
    std::vector<v1::RunEvent> events;
    v1::WatchRunResponse response;
    while (reader->Read(&response)) events.push_back(response.event());
    const grpc::Status status = reader->Finish();
    if (!status.ok()) return absl::UnavailableError(status.error_message());
    return events;
  }

  absl::StatusOr<ha::InSyncSet> WaitForInSyncSet(int leader) {
    return cluster_->WaitForInSyncSet(leader, absl::Seconds(20));
  }

  // Who is who once the leader wrote its in-sync set of one follower: the
  // leader, that follower, and the third replica.
  struct Roles {
    int leader = 0;
    int in_sync = 0;
    int other = 0;
  };
  void WaitForRoles(Roles* roles) {
    std::optional<int> leader = WaitForOneLeader(std::chrono::seconds(30));
    ASSERT_TRUE(leader.has_value()) << "no single leader\n" << Logs();
    absl::StatusOr<ha::InSyncSet> set = WaitForInSyncSet(*leader);
    ASSERT_TRUE(set.ok()) << set.status();
    ASSERT_EQ(set->replicas.size(), 1u);
    roles->leader = *leader;
    roles->in_sync = set->replicas.front().back() - '0';
    roles->other = 3 - *leader - roles->in_sync;  // replicas 0, 1 and 2
    ASSERT_NE(roles->in_sync, roles->leader);
  }

  // SubmitRun to replica `i` on another thread (a 60 s deadline); the
  // future holds its status and run id.
  std::future<std::pair<grpc::Status, std::string>> SubmitAsync(int i) {
    return std::async(std::launch::async, [this, i] {
      v1::SubmitRunRequest request;
      request.mutable_source()->set_text(kFlow);
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
      v1::SubmitRunResponse response;
      grpc::Status status = Client(i)->SubmitRun(&context, request, &response);
      return std::make_pair(status, response.run_id());
    });
  }

  std::unique_ptr<testing::ReplicaCluster> cluster_;
};

TEST_F(ReplicatedSchedulerTest, FollowerRefuses_LeaderServes_FailoverKeepsTheRun) {
  // Exactly one leader.
  std::optional<int> leader = WaitForOneLeader(std::chrono::seconds(30));
  ASSERT_TRUE(leader.has_value()) << "no single leader\n" << Logs();
  const int follower = (*leader + 1) % kReplicas;
  const std::string leader_address = cluster_->Address(*leader);
  EXPECT_EQ(Sample(*leader, R"(taskboard_scheduler_ha_role{role="leader"})"), 1);
  EXPECT_EQ(Sample(follower, R"(taskboard_scheduler_ha_role{role="follower"})"), 1);
  EXPECT_EQ(Get(follower, "/healthz"), 200);  // the process is up
  EXPECT_NE(Get(follower, "/readyz"), 200);   // but it does not lead

  // A follower refuses a submit, naming the leader (once it has seen the key).
  {
    grpc::Status status;
    std::string trailer;
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    do {
      grpc::ClientContext context;
      v1::SubmitRunResponse response;
      status = Submit(follower, context, response);
      auto found = context.GetServerTrailingMetadata().find("taskboard-leader");
      trailer = found == context.GetServerTrailingMetadata().end()
                    ? ""
                    : std::string(found->second.data(), found->second.size());
    } while (trailer.empty() && Clock::now() < deadline);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
    EXPECT_EQ(trailer, leader_address);
    EXPECT_TRUE(absl::StrContains(
        status.error_message(),
        absl::StrCat("not the leader; the leader is at ", leader_address, " (epoch ")))
        << status.error_message();
    google::rpc::Status details;
    ASSERT_TRUE(details.ParseFromString(status.error_details()));
    ASSERT_EQ(details.details_size(), 1);
    v1::NotLeader not_leader;
    ASSERT_TRUE(details.details(0).UnpackTo(&not_leader));
    EXPECT_EQ(not_leader.leader_grpc(), leader_address);
    EXPECT_EQ(not_leader.leader_http(), absl::StrCat("127.0.0.1:", cluster_->http_port(*leader)));
    EXPECT_GT(not_leader.epoch(), 0);
  }
  // And so does its HTTP API: 503, the leader in the body and a header.
  {
    httplib::Client client("127.0.0.1", cluster_->http_port(follower));
    client.set_read_timeout(10, 0);
    httplib::Result result = client.Post("/api/v1/ListRuns", "{}", "application/json");
    ASSERT_TRUE(result) << httplib::to_string(result.error());
    EXPECT_EQ(result->status, 503) << result->body;
    EXPECT_EQ(result->get_header_value("taskboard-leader"), leader_address);
    const Json body = Json::parse(result->body, nullptr, false);
    EXPECT_EQ(body.value("code", ""), "unavailable") << result->body;
    ASSERT_TRUE(body.contains("leader")) << result->body;
    EXPECT_EQ(body["leader"].value("grpc", ""), leader_address);
    EXPECT_EQ(body["leader"].value("http", ""),
              absl::StrCat("127.0.0.1:", cluster_->http_port(*leader)));
  }

  // The leader takes the run; a worker connected to it completes it.
  ASSERT_TRUE(cluster_->StartWorker(0).ok());
  std::string run_id;
  {
    grpc::ClientContext context;
    v1::SubmitRunResponse response;
    const grpc::Status status = Submit(*leader, context, response);
    ASSERT_TRUE(status.ok()) << status.error_message() << Logs();
    run_id = response.run_id();
  }
  absl::StatusOr<v1::Run> run = WaitForRun(*leader, run_id);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << Logs();
  absl::StatusOr<std::vector<v1::RunEvent>> events = Events(*leader, run_id);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_FALSE(events->empty());

  // Until the commit path waits for followers (current limit, above): both
  // followers hold every batch the leader wrote before it dies.
  std::optional<double> written = Sample(*leader, "taskboard_scheduler_ha_applied_index");
  // The role publishes the index on its tick; wait for it to cover the run.
  const auto settle = Clock::now() + std::chrono::seconds(10);
  while ((!written.has_value() || *written <= 0) && Clock::now() < settle) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    written = Sample(*leader, "taskboard_scheduler_ha_applied_index");
  }
  ASSERT_TRUE(written.has_value() && *written > 0) << Logs();
  for (int i = 0; i < kReplicas; ++i) {
    if (i == *leader) continue;
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    std::optional<double> applied;
    while (Clock::now() < deadline) {
      applied = Sample(i, "taskboard_scheduler_ha_applied_index");
      if (applied.has_value() && *applied >= *written) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(applied.has_value() && *applied >= *written)
        << "replica " << i << " applied " << applied.value_or(-1) << " of " << *written << Logs();
    EXPECT_EQ(Sample(i, "taskboard_scheduler_ha_replication_lag_batches"), 0);
  }
  // The leader's view: one in-sync follower, and each follower's lag, which
  // falls to nothing once it holds every batch.
  EXPECT_EQ(Sample(*leader, "taskboard_scheduler_ha_in_sync_followers"), 1);
  // Each of the run's batches waited for that follower's ack before its
  // reply or assignment went out, and the wait was measured.
  EXPECT_GE(Sample(*leader, "taskboard_scheduler_ha_ack_latency_seconds_count").value_or(0), 1);
  EXPECT_GT(Sample(*leader, "taskboard_scheduler_ha_ack_latency_seconds_sum").value_or(0), 0);
  for (int i = 0; i < kReplicas; ++i) {
    if (i == *leader) continue;
    const std::string lag =
        absl::StrCat(R"(taskboard_scheduler_ha_follower_lag_batches{replica="s)", i, R"("})");
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline && Sample(*leader, lag) != 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(Sample(*leader, lag), 0) << Logs();
    EXPECT_EQ(
        Sample(*leader, absl::StrCat(R"(taskboard_scheduler_ha_follower_lag_seconds{replica="s)", i,
                                     R"("})")),
        0);
  }

  // SIGKILL the leader: another replica leads within the deadline.
  const auto killed = Clock::now();
  Process(*leader).Signal(SIGKILL);
  Process(*leader).WaitFor(10'000);
  std::optional<int> next = WaitForOneLeader(
      std::chrono::duration_cast<std::chrono::seconds>(kFailoverDeadline), *leader);
  const auto failover_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed).count();
  ASSERT_TRUE(next.has_value()) << "no new leader within " << kFailoverDeadline.count() << " s"
                                << Logs();
  std::cout << "failover (SIGKILL -> new leader ready) with --ha-lease-ttl " << kLeaseTtl << ": "
            << failover_ms << " ms\n";

  // The run and its events are there on the new leader: they were replicated.
  absl::StatusOr<v1::Run> replicated = WaitForRun(*next, run_id);
  ASSERT_TRUE(replicated.ok()) << replicated.status();
  EXPECT_EQ(replicated->status(), v1::RUN_STATUS_COMPLETED);
  absl::StatusOr<std::vector<v1::RunEvent>> replicated_events = Events(*next, run_id);
  ASSERT_TRUE(replicated_events.ok()) << replicated_events.status();
  ASSERT_EQ(replicated_events->size(), events->size());
  for (size_t e = 0; e < events->size(); ++e) {
    EXPECT_EQ((*replicated_events)[e].SerializeAsString(), (*events)[e].SerializeAsString())
        << "event " << e;
  }

  // The new leader's metrics: a failover, a higher epoch, and promtool clean.
  std::string metrics;
  ASSERT_EQ(Get(*next, "/metrics", &metrics), 200);
  EXPECT_EQ(testing::SampleValue(metrics, R"(taskboard_scheduler_ha_role{role="leader"})"), 1);
  EXPECT_EQ(testing::SampleValue(metrics, "taskboard_scheduler_ha_failovers_total"), 1);
  EXPECT_EQ(testing::SampleValue(metrics, "taskboard_scheduler_ha_elections_won_total"), 1);
  std::optional<testing::Promtool> promtool =
      testing::CheckMetrics(metrics, (cluster_->dir() / "replica.metrics").string());
  if (promtool.has_value()) {
    EXPECT_EQ(promtool->exit_code, 0) << promtool->output << "\n" << metrics;
    EXPECT_EQ(promtool->output, "") << metrics;
  }
}

TEST_F(ReplicatedSchedulerTest, StoppedLeader_IsReplacedAndStepsDownWithExitCode3) {
  std::optional<int> leader = WaitForOneLeader(std::chrono::seconds(30));
  ASSERT_TRUE(leader.has_value()) << "no single leader\n" << Logs();
  ChildProcess& stopped = Process(*leader);

  // Frozen past its lease: etcd expires the key and another replica leads.
  stopped.Signal(SIGSTOP);
  std::optional<int> next = WaitForOneLeader(
      std::chrono::duration_cast<std::chrono::seconds>(kFailoverDeadline), *leader);
  ASSERT_TRUE(next.has_value()) << "no new leader while the old one was stopped" << Logs();
  EXPECT_EQ(Sample(*next, R"(taskboard_scheduler_ha_role{role="leader"})"), 1);

  // Continued, the old leader finds its deadline passed and steps down by
  // exiting (its supervisor would start it again as a follower).
  stopped.Signal(SIGCONT);
  std::optional<int> exit_code = stopped.WaitFor(10'000);
  ASSERT_TRUE(exit_code.has_value()) << "the old leader did not exit" << Logs();
  EXPECT_EQ(*exit_code, 3) << Logs();
  EXPECT_TRUE(
      absl::StrContains(ReadFileOrEmpty(cluster_->File(*leader, "log").string()), "stepped down: "))
      << Logs();
  // The new leader still serves.
  grpc::ClientContext context;
  v1::SubmitRunResponse response;
  const grpc::Status status = Submit(*next, context, response);
  EXPECT_TRUE(status.ok()) << status.error_message();
}

// The leader acknowledges a write only once its in-sync follower holds it
// (--ha-sync-replicas 1). Both followers stopped: no follower can hold the
// run and none can replace the in-sync one, so the reply waits (strict,
// docs/decisions.md decision 170) well past --ha-sync-timeout. Continued,
// the in-sync follower acknowledges and the reply comes; the run is on that
// follower's store, which the next leader (only it may be elected) serves.
TEST_F(ReplicatedSchedulerTest, InSyncFollowerStopped_SubmitWaitsUntilItHoldsTheRun) {
  Roles roles;
  ASSERT_NO_FATAL_FAILURE(WaitForRoles(&roles));
  const auto [leader, in_sync, other] = roles;

  Process(in_sync).Signal(SIGSTOP);
  Process(other).Signal(SIGSTOP);
  auto submitted = SubmitAsync(leader);
  // Several --ha-sync-timeouts (1 s) and role ticks: still no answer.
  EXPECT_EQ(submitted.wait_for(std::chrono::seconds(4)), std::future_status::timeout)
      << "the leader answered before any follower held the run" << Logs();

  const auto continued = Clock::now();
  Process(in_sync).Signal(SIGCONT);
  ASSERT_EQ(submitted.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "no answer after the in-sync follower continued" << Logs();
  const auto [status, run_id] = submitted.get();
  ASSERT_TRUE(status.ok()) << status.error_message() << Logs();
  std::cout
      << "SubmitRun answered "
      << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - continued).count()
      << " ms after the in-sync follower continued\n";
  Process(other).Signal(SIGCONT);

  // The run is on the in-sync follower: kill the leader, and that follower
  // (the only eligible one) serves it.
  Process(leader).Signal(SIGKILL);
  Process(leader).WaitFor(10'000);
  std::optional<int> next = WaitForOneLeader(
      std::chrono::duration_cast<std::chrono::seconds>(kFailoverDeadline), leader);
  ASSERT_TRUE(next.has_value()) << "no new leader" << Logs();
  EXPECT_EQ(*next, in_sync);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::GetRunRequest request;
  request.set_run_id(run_id);
  v1::GetRunResponse response;
  const grpc::Status got = Client(*next)->GetRun(&context, request, &response);
  EXPECT_TRUE(got.ok()) << run_id << ": " << got.error_message() << Logs();
  EXPECT_EQ(response.run().run_id(), run_id);
}

// A saved flow is written from an RPC thread, outside the engine's commit,
// and read from the view of acknowledged writes (decision 222): with both
// followers stopped, a SaveFlow cannot be acknowledged, and until a follower
// holds it GetFlow, ListFlows and a SubmitRun by its name do not see it
// either, as a failover could lose it. Once the in-sync follower continues,
// the version is served without anything else being written.
TEST_F(ReplicatedSchedulerTest, InSyncFollowerStopped_SavedFlowServedOnlyOnceAFollowerHoldsIt) {
  Roles roles;
  ASSERT_NO_FATAL_FAILURE(WaitForRoles(&roles));
  const auto [leader, in_sync, other] = roles;
  std::unique_ptr<v1::Scheduler::Stub> client = Client(leader);
  auto deadline = [](grpc::ClientContext& context, int seconds) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  };

  Process(in_sync).Signal(SIGSTOP);
  Process(other).Signal(SIGSTOP);
  {
    v1::SaveFlowRequest request;
    request.mutable_source()->set_text(kFlow);
    v1::SaveFlowResponse response;
    grpc::ClientContext context;
    deadline(context, 2);
    const grpc::Status saved = client->SaveFlow(&context, request, &response);
    EXPECT_FALSE(saved.ok()) << "SaveFlow answered OK with no follower holding the flow" << Logs();
  }
  {
    v1::GetFlowRequest request;
    request.set_name("replicated");
    v1::GetFlowResponse response;
    grpc::ClientContext context;
    deadline(context, 5);
    const grpc::Status got = client->GetFlow(&context, request, &response);
    EXPECT_EQ(got.error_code(), grpc::StatusCode::NOT_FOUND)
        << "an unacknowledged version was served: " << response.ShortDebugString();
  }
  {
    v1::ListFlowsResponse response;
    grpc::ClientContext context;
    deadline(context, 5);
    ASSERT_TRUE(client->ListFlows(&context, {}, &response).ok());
    EXPECT_EQ(response.flows_size(), 0) << response.ShortDebugString();
  }
  {
    v1::SubmitRunRequest request;
    request.mutable_saved()->set_name("replicated");
    v1::SubmitRunResponse response;
    grpc::ClientContext context;
    deadline(context, 5);
    EXPECT_EQ(client->SubmitRun(&context, request, &response).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }

  Process(in_sync).Signal(SIGCONT);
  Process(other).Signal(SIGCONT);
  v1::GetFlowResponse served;
  const auto until = Clock::now() + std::chrono::seconds(20);
  grpc::Status got;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    v1::GetFlowRequest request;
    request.set_name("replicated");
    grpc::ClientContext context;
    deadline(context, 5);
    got = client->GetFlow(&context, request, &served);
  } while (!got.ok() && Clock::now() < until);
  ASSERT_TRUE(got.ok()) << "the flow was not served once the followers held it: "
                        << got.error_message() << Logs();
  EXPECT_EQ(served.flow().version(), 1);
}

// One follower stopped and one running: after --ha-sync-timeout the leader
// replaces the stopped in-sync follower (in etcd first) with the running one,
// which holds the run, and only then answers.
TEST_F(ReplicatedSchedulerTest, InSyncFollowerStopped_ReplacedAfterSyncTimeout) {
  Roles roles;
  ASSERT_NO_FATAL_FAILURE(WaitForRoles(&roles));
  const auto [leader, in_sync, other] = roles;

  Process(in_sync).Signal(SIGSTOP);
  const auto stopped = Clock::now();
  auto submitted = SubmitAsync(leader);
  ASSERT_EQ(submitted.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "no answer although another follower holds the run" << Logs();
  const auto answered_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - stopped).count();
  // The leader's metrics show the stopped follower behind: batches, bytes,
  // and an age that grows while it stays stopped.
  const std::string stopped_label = absl::StrCat(R"({replica="s)", in_sync, R"("})");
  std::optional<double> lag_seconds;
  const auto lag_deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < lag_deadline) {
    lag_seconds = Sample(leader, "taskboard_scheduler_ha_follower_lag_seconds" + stopped_label);
    if (lag_seconds.value_or(0) > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GT(lag_seconds.value_or(0), 0) << Logs();
  EXPECT_GE(
      Sample(leader, "taskboard_scheduler_ha_follower_lag_batches" + stopped_label).value_or(0),
      1);
  EXPECT_GT(
      Sample(leader, "taskboard_scheduler_ha_follower_lag_bytes" + stopped_label).value_or(0), 0);
  const auto [status, run_id] = submitted.get();
  EXPECT_TRUE(status.ok()) << status.error_message() << Logs();
  // Not before the sync timeout (1 s) made the stopped member lag.
  EXPECT_GE(answered_ms, 900) << Logs();
  std::cout << "SubmitRun answered " << answered_ms
            << " ms after the in-sync follower stopped (--ha-sync-timeout 1s)\n";

  absl::StatusOr<ha::InSyncSet> replaced = WaitForInSyncSet(leader);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(replaced->replicas, std::vector<std::string>{absl::StrCat("s", other)});
  EXPECT_TRUE(absl::StrContains(ReadFileOrEmpty(cluster_->File(leader, "log").string()),
                                "replaced a lagging in-sync follower"))
      << Logs();
  Process(in_sync).Signal(SIGCONT);
}

}  // namespace
}  // namespace taskboard
