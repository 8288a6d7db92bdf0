// The CLI against replicated schedulers (docs/operations.md#clients-and-replicated-schedulers):
// a replica that does not lead answers UNAVAILABLE with the `taskboard-leader`
// trailer, and the CLI goes there at once; an address that cannot be reached
// is skipped; giving up names every address; a retried SubmitRun keeps its
// idempotency key. Real gRPC on loopback ports.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/fake_scheduler.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {
namespace {

using ::testing::AllOf;
using testing::Cli;
using testing::ClosedPort;
using ::testing::ElementsAre;
using testing::ExampleFlow;
using testing::FakeScheduler;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::testing::StartsWith;

// A replica that does not lead: every call it serves is answered as the
// scheduler's follower answers it, UNAVAILABLE naming the leader in its
// message and trailer (no trailer while no leader is elected). It records
// the idempotency keys of the submits it turned away.
class FollowerReplica final : public v1::Scheduler::Service {
 public:
  // `leader` empty: "no leader elected yet".
  explicit FollowerReplica(std::string leader) : leader_(std::move(leader)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~FollowerReplica() override {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  int calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  std::vector<std::string> submit_keys() const {
    std::lock_guard lock(mu_);
    return submit_keys_;
  }

  grpc::Status SubmitRun(grpc::ServerContext* context, const v1::SubmitRunRequest* request,
                         v1::SubmitRunResponse*) override {
    {
      std::lock_guard lock(mu_);
      submit_keys_.push_back(request->idempotency_key());
    }
    return NotLeader(context);
  }
  grpc::Status ListRuns(grpc::ServerContext* context, const v1::ListRunsRequest*,
                        v1::ListRunsResponse*) override {
    return NotLeader(context);
  }
  grpc::Status GetRun(grpc::ServerContext* context, const v1::GetRunRequest*,
                      v1::GetRunResponse*) override {
    return NotLeader(context);
  }

 private:
  grpc::Status NotLeader(grpc::ServerContext* context) {
    std::lock_guard lock(mu_);
    ++calls_;
    if (leader_.empty()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no leader elected yet; retry");
    }
    context->AddTrailingMetadata("taskboard-leader", leader_);
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        absl::StrCat("not the leader; the leader is at ", leader_, " (epoch 7)"));
  }

  const std::string leader_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  mutable std::mutex mu_;
  int calls_ = 0;
  std::vector<std::string> submit_keys_;
};

std::string Nowhere() { return absl::StrCat("127.0.0.1:", ClosedPort()); }

v1::ListRunsResponse OneRun() {
  v1::ListRunsResponse runs;
  runs.add_runs()->set_run_id("r-1");
  return runs;
}

// Attempts, not time: one turned away, no wait before the leader.
TEST(SchedulerFailover, NotLeader_FollowsTheTrailerAtOnce) {
  FakeScheduler leader;
  leader.SetRuns(OneRun());
  FollowerReplica follower(leader.address());
  SchedulerClient client(absl::StrCat(follower.address(), ",", leader.address()));
  v1::ListRunsResponse runs;
  ASSERT_TRUE(client.Call(&v1::Scheduler::Stub::ListRuns, v1::ListRunsRequest(), &runs).ok());
  EXPECT_THAT(runs.runs(), SizeIs(1));
  EXPECT_EQ(follower.calls(), 1);
  EXPECT_EQ(client.channels().failed_attempts(), 1);
  EXPECT_EQ(client.channels().waited(), absl::ZeroDuration());
  EXPECT_EQ(client.channels().address(), leader.address());
  // The next call goes straight to the leader.
  ASSERT_TRUE(client.Call(&v1::Scheduler::Stub::ListRuns, v1::ListRunsRequest(), &runs).ok());
  EXPECT_EQ(follower.calls(), 1);
}

TEST(SchedulerFailover, NotLeader_LeaderMissingFromTheList_IsAdded) {
  FakeScheduler leader;
  leader.SetRuns(OneRun());
  FollowerReplica follower(leader.address());
  SchedulerClient client(follower.address());
  v1::ListRunsResponse runs;
  ASSERT_TRUE(client.Call(&v1::Scheduler::Stub::ListRuns, v1::ListRunsRequest(), &runs).ok());
  EXPECT_EQ(client.address(), absl::StrCat(follower.address(), ", ", leader.address()));
  EXPECT_EQ(client.channels().waited(), absl::ZeroDuration());
}

TEST(SchedulerFailover, DeadFirstAddress_IsSkipped) {
  FakeScheduler leader;
  leader.SetRuns(OneRun());
  testing::CliResult result =
      Cli({"runs", "--json", "--scheduler", absl::StrCat(Nowhere(), ",", leader.address())});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("r-1"));
}

TEST(SchedulerFailover, NobodyLeads_GivesUpNamingEveryAddressAndItsAnswer) {
  const std::string dead = Nowhere();
  FollowerReplica electing("");
  testing::CliResult result =
      Cli({"runs", "--scheduler", absl::StrCat(dead, ",", electing.address()), "--failover-timeout",
           "1s"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(
      result.err,
      AllOf(StartsWith(absl::StrCat("taskboard runs: cannot reach the scheduler at ", dead, ", ",
                                    electing.address(), ": ")),
            HasSubstr("within 1s (--failover-timeout)"),
            HasSubstr(absl::StrCat(dead, " (cannot connect)")),
            HasSubstr(absl::StrCat(electing.address(), " (no leader elected yet; retry)"))));
  EXPECT_GE(electing.calls(), 1);
}

TEST(SchedulerFailover, RetriedSubmit_CarriesTheSameAutomaticIdempotencyKey) {
  FakeScheduler leader;
  FollowerReplica follower(leader.address());
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--no-watch", "--scheduler",
           absl::StrCat(follower.address(), ",", leader.address())});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  ASSERT_THAT(follower.submit_keys(), SizeIs(1));
  EXPECT_THAT(follower.submit_keys()[0], StartsWith("cli-"));
  EXPECT_EQ(leader.submitted().idempotency_key(), follower.submit_keys()[0]);
}

TEST(SchedulerFailover, RetriedSubmit_KeepsTheUsersIdempotencyKey) {
  FakeScheduler leader;
  FollowerReplica follower(leader.address());
  testing::CliResult result =
      Cli({"run", ExampleFlow("repo-digest.yaml"), "--no-watch", "--idempotency-key", "deploy-42",
           "--scheduler", absl::StrCat(follower.address(), ",", leader.address())});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(follower.submit_keys(), ElementsAre("deploy-42"));
  EXPECT_EQ(leader.submitted().idempotency_key(), "deploy-42");
}

TEST(SchedulerFailover, EmptyAddressInTheList_IsRejectedBeforeAnyCall) {
  testing::CliResult result = Cli({"runs", "--scheduler", "a:1,,b:2"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr("address 2 is empty"));
}

}  // namespace
}  // namespace taskboard::cli
