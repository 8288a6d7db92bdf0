// Failing over by hand (docs/operations.md#failing-over-by-hand) with three
// real taskboard-scheduler replicas on a real 3-member etcd and the real
// `taskboard` CLI: a switchover to the in-sync follower while submits are in
// flight loses no acknowledged run and takes a few seconds; a switchover to a
// stopped or a lagging follower is refused and the leader serves on; a
// promotion without --force is refused; with --force, after the leader and
// the in-sync follower were killed, the other follower leads and every
// status says that writes may have been lost.

#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/child_process.h"
#include "common/files.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "scheduler/ha/etcd_client.h"
#include "scheduler/ha/in_sync_set.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/testing/cluster.h"
#include "tests/testing/etcd_cluster.h"
#include "tests/testing/metrics_port.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kReplicas = 3;
constexpr char kLeaseTtl[] = "2s";
constexpr auto kElectionDeadline = std::chrono::seconds(30);

constexpr char kFlow[] = R"(
name: by-hand
phases:
  - id: hello
    agent: echo
    task: echo by hand
)";

int ReadPort(const std::filesystem::path& file) {
  int port = 0;
  std::ifstream(file) >> port;
  return port;
}

class FailoverByHandTest : public ::testing::Test {
 protected:
  struct Replica {
    std::unique_ptr<ChildProcess> process;
    std::string address;
    int metrics_port = 0;
  };
  struct CliRun {
    int exit_code = -1;
    std::string output;  // stdout and stderr
    std::chrono::milliseconds took{0};
  };

  void SetUp() override {
    absl::StatusOr<std::unique_ptr<testing::EtcdCluster>> etcd = testing::EtcdCluster::Start();
    if (!etcd.ok() && absl::StrContains(etcd.status().message(), "/usr/bin/etcd")) {
      GTEST_SKIP() << "etcd is not installed (Debian package etcd-server): "
                   << etcd.status().message();
    }
    ASSERT_TRUE(etcd.ok()) << etcd.status();
    etcd_ = *std::move(etcd);
    replicas_.resize(kReplicas);
    for (int i = 0; i < kReplicas; ++i) {
      absl::Status started = StartReplica(i);
      ASSERT_TRUE(started.ok()) << started << Logs();
    }
  }

  void TearDown() override {
    for (Replica& replica : replicas_) {
      if (replica.process != nullptr) replica.process->Signal(SIGCONT);
      replica.process.reset();
    }
  }

  std::filesystem::path File(int i, const std::string& name) const {
    return dir_.path() / absl::StrCat("s", i, ".", name);
  }

  absl::Status StartReplica(int i) {
    for (const char* name : {"port", "metrics-port"}) std::filesystem::remove(File(i, name));
    std::vector<std::string> argv = {
        testing::BinaryPath("taskboard-scheduler"),
        "--listen=127.0.0.1:0",
        absl::StrCat("--data-dir=", File(i, "data").string()),
        "--durability=wal",
        absl::StrCat("--port-file=", File(i, "port").string()),
        "--metrics-listen=127.0.0.1:0",
        absl::StrCat("--metrics-port-file=", File(i, "metrics-port").string()),
        absl::StrCat("--ha-etcd-endpoints=", absl::StrJoin(etcd_->endpoints(), ",")),
        "--ha-cluster=test",
        absl::StrCat("--ha-replica-id=s", i),
        absl::StrCat("--ha-lease-ttl=", kLeaseTtl)};
    absl::StatusOr<std::unique_ptr<ChildProcess>> child =
        ChildProcess::Spawn(argv, File(i, "log").string());
    if (!child.ok()) return child.status();
    Replica& replica = replicas_.at(i);
    replica.process = *std::move(child);
    absl::StatusOr<int> port = WaitForPortFile(*replica.process, File(i, "port").string(), 30'000);
    if (!port.ok()) return port.status();
    replica.address = absl::StrCat("127.0.0.1:", *port);
    replica.metrics_port = ReadPort(File(i, "metrics-port"));
    return replica.metrics_port == 0 ? absl::InternalError("no metrics port") : absl::OkStatus();
  }

  std::string AllAddresses() const {
    std::vector<std::string> addresses;
    for (const Replica& replica : replicas_) addresses.push_back(replica.address);
    return absl::StrJoin(addresses, ",");
  }

  int Get(int i, const std::string& path) {
    return testing::GetOnMetricsPort(replicas_.at(i).metrics_port, path);
  }

  std::optional<int> WaitForOneLeader(std::chrono::seconds timeout, int not_this = -1) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      std::vector<int> ready;
      for (int i = 0; i < kReplicas; ++i) {
        if (i == not_this || replicas_.at(i).process == nullptr) continue;
        if (Get(i, "/readyz") == 200) ready.push_back(i);
      }
      if (ready.size() == 1) return ready.front();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::nullopt;
  }

  std::unique_ptr<ha::EtcdClient> Etcd() {
    return *ha::EtcdClient::Create(ha::EtcdClientOptions{.endpoints = etcd_->endpoints()});
  }

  // The value of `key` under the cluster's prefix ("" when absent).
  std::string EtcdValue(const std::string& key) {
    etcdserverpb::RangeRequest request;
    request.set_key(absl::StrCat("/taskboard/test/", key));
    absl::StatusOr<etcdserverpb::RangeResponse> range =
        Etcd()->Range(request, absl::Now() + absl::Seconds(2));
    return range.ok() && range->kvs_size() == 1 ? range->kvs(0).value() : std::string();
  }

  // The index of the follower the leader lists in sync, once it does.
  std::optional<int> WaitForInSyncFollower(int leader) {
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
      absl::StatusOr<ha::InSyncSet> set = ha::DecodeInSyncSet(EtcdValue("in_sync"));
      if (set.ok() && set->leader == absl::StrCat("s", leader) && set->replicas.size() == 1) {
        return set->replicas.front().back() - '0';
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::nullopt;
  }

  // The `taskboard` CLI with `args`, to its exit (60 s at most).
  CliRun Cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {testing::BinaryPath("taskboard")};
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string log = (dir_.path() / absl::StrCat("cli", ++cli_runs_, ".log")).string();
    CliRun run;
    const auto started = Clock::now();
    absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Spawn(argv, log);
    if (!child.ok()) {
      run.output = std::string(child.status().message());
      return run;
    }
    run.exit_code = (*child)->WaitFor(60'000).value_or(-1);
    run.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
    run.output = ReadFileOrEmpty(log);
    return run;
  }

  std::unique_ptr<v1::Scheduler::Stub> Client(int i) {
    return v1::Scheduler::NewStub(testing::TestChannel(replicas_.at(i).address));
  }

  grpc::Status Submit(int i, std::string* run_id) {
    v1::SubmitRunRequest request;
    request.mutable_source()->set_text(kFlow);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    v1::SubmitRunResponse response;
    grpc::Status status = Client(i)->SubmitRun(&context, request, &response);
    *run_id = response.run_id();
    return status;
  }

  grpc::Status GetRun(int i, const std::string& run_id) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::GetRunResponse response;
    return Client(i)->GetRun(&context, request, &response);
  }

  std::string Logs() const {
    std::string logs;
    for (int i = 0; i < kReplicas; ++i) {
      const std::string text = ReadFileOrEmpty(File(i, "log").string());
      absl::StrAppend(&logs, "\n--- s", i, ".log\n",
                      text.size() > 4000 ? text.substr(text.size() - 4000) : text);
    }
    return logs;
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::EtcdCluster> etcd_;
  std::vector<Replica> replicas_;
  int cli_runs_ = 0;
};

TEST_F(FailoverByHandTest, SwitchoverToTheInSyncFollower_WithSubmitsInFlight_LosesNothing) {
  std::optional<int> leader = WaitForOneLeader(kElectionDeadline);
  ASSERT_TRUE(leader.has_value()) << "no single leader" << Logs();
  std::optional<int> target = WaitForInSyncFollower(*leader);
  ASSERT_TRUE(target.has_value()) << "no in-sync follower" << Logs();

  // Submits to the leader, back to back, until it stops admitting them.
  std::mutex mu;
  std::vector<std::string> acknowledged;
  std::atomic<bool> stop{false};
  std::thread submitter([&] {
    while (!stop.load()) {
      std::string run_id;
      const grpc::Status status = Submit(*leader, &run_id);
      if (!status.ok()) break;  // NotLeader, or the old leader is gone
      std::lock_guard<std::mutex> lock(mu);
      acknowledged.push_back(run_id);
    }
  });
  // Some acknowledged before the switchover begins.
  const auto warmup = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < warmup) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (acknowledged.size() >= 5) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  const CliRun run = Cli({"admin", "ha", "switchover", "--to", absl::StrCat("s", *target),
                          "--scheduler", AllAddresses()});
  stop = true;
  submitter.join();
  ASSERT_EQ(run.exit_code, 0) << run.output << Logs();
  EXPECT_TRUE(absl::StrContains(run.output,
                                absl::StrCat("switched over from s", *leader, " to s", *target)))
      << run.output;
  std::cout << "switchover (CLI start -> new leader answers): " << run.took.count() << " ms; "
            << run.output;
  EXPECT_LT(run.took, std::chrono::seconds(5)) << run.output << Logs();

  // The old leader resigned and exited as any deposed leader does.
  std::optional<int> exit_code = replicas_.at(*leader).process->WaitFor(10'000);
  ASSERT_TRUE(exit_code.has_value()) << "the old leader did not exit" << Logs();
  EXPECT_EQ(*exit_code, 3);
  EXPECT_TRUE(absl::StrContains(ReadFileOrEmpty(File(*leader, "log").string()), "term ") &&
              absl::StrContains(ReadFileOrEmpty(File(*leader, "log").string()), "resigned"))
      << Logs();
  replicas_.at(*leader).process.reset();
  std::optional<int> next = WaitForOneLeader(std::chrono::seconds(10));
  ASSERT_TRUE(next.has_value()) << Logs();
  EXPECT_EQ(*next, *target);

  // Every run the old leader acknowledged is on the new one.
  ASSERT_GE(acknowledged.size(), 5u) << Logs();
  for (const std::string& run_id : acknowledged) {
    const grpc::Status got = GetRun(*target, run_id);
    EXPECT_TRUE(got.ok()) << run_id << " lost: " << got.error_message();
  }
  // And the new leader serves new submits.
  std::string run_id;
  const grpc::Status submitted = Submit(*target, &run_id);
  EXPECT_TRUE(submitted.ok()) << submitted.error_message() << Logs();
}

TEST_F(FailoverByHandTest, SwitchoverToAStoppedOrLaggingFollower_IsRefused) {
  std::optional<int> leader = WaitForOneLeader(kElectionDeadline);
  ASSERT_TRUE(leader.has_value()) << "no single leader" << Logs();
  std::optional<int> in_sync = WaitForInSyncFollower(*leader);
  ASSERT_TRUE(in_sync.has_value()) << "no in-sync follower" << Logs();
  const int other = 3 - *leader - *in_sync;

  // Not in the in-sync set: refused, whatever it holds now.
  CliRun run = Cli({"admin", "ha", "switchover", "--to", absl::StrCat("s", other), "--scheduler",
                    AllAddresses()});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(absl::StrContains(run.output, "is not in sync")) << run.output;

  // Stopped: it answers nothing, and a handover to it is refused.
  replicas_.at(*in_sync).process->Signal(SIGSTOP);
  run = Cli({"admin", "ha", "switchover", "--to", absl::StrCat("s", *in_sync), "--scheduler",
             AllAddresses()});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(absl::StrContains(run.output, "did not answer")) << run.output;
  replicas_.at(*in_sync).process->Signal(SIGCONT);

  // The leader still leads and serves.
  EXPECT_EQ(Get(*leader, "/readyz"), 200) << Logs();
  std::string run_id;
  const grpc::Status submitted = Submit(*leader, &run_id);
  EXPECT_TRUE(submitted.ok()) << submitted.error_message() << Logs();
  // Naming the leader itself is an argument error.
  run = Cli({"admin", "ha", "switchover", "--to", absl::StrCat("s", *leader), "--scheduler",
             AllAddresses()});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(absl::StrContains(run.output, "already leads")) << run.output;
}

TEST_F(FailoverByHandTest, PromoteByForce_AfterLeaderAndInSyncFollowerDied_RecordsLostWrites) {
  std::optional<int> leader = WaitForOneLeader(kElectionDeadline);
  ASSERT_TRUE(leader.has_value()) << "no single leader" << Logs();
  std::optional<int> in_sync = WaitForInSyncFollower(*leader);
  ASSERT_TRUE(in_sync.has_value()) << "no in-sync follower" << Logs();
  const int other = 3 - *leader - *in_sync;
  const std::string other_id = absl::StrCat("s", other);

  // While a leader serves, promote is the wrong tool.
  CliRun run = Cli({"admin", "ha", "promote", "--force", other_id, "--scheduler", AllAddresses()});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(absl::StrContains(run.output, "switchover --to " + other_id)) << run.output;

  // The leader and the only in-sync follower are gone for good.
  for (int dead : {*leader, *in_sync}) {
    replicas_.at(dead).process->Signal(SIGKILL);
    replicas_.at(dead).process->WaitFor(10'000);
    replicas_.at(dead).process.reset();
  }
  // Wait for the leader key to expire: the other follower may not campaign.
  const auto expired = Clock::now() + std::chrono::seconds(20);
  while (!EtcdValue("leader").empty() && Clock::now() < expired) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(EtcdValue("leader").empty()) << Logs();
  EXPECT_NE(Get(other, "/readyz"), 200);

  // Without --force: refused, saying what could be lost.
  run = Cli({"admin", "ha", "promote", other_id, "--scheduler", AllAddresses()});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(absl::StrContains(run.output, "without --force")) << run.output;
  EXPECT_TRUE(absl::StrContains(run.output, absl::StrCat("s", *in_sync))) << run.output;
  EXPECT_TRUE(EtcdValue("may_have_lost_writes").empty());

  run = Cli({"admin", "ha", "promote", "--force", other_id, "--scheduler", AllAddresses()});
  ASSERT_EQ(run.exit_code, 0) << run.output << Logs();
  EXPECT_TRUE(absl::StrContains(run.output, "may be lost")) << run.output;
  std::cout << run.output;
  std::optional<int> next = WaitForOneLeader(std::chrono::seconds(10));
  ASSERT_TRUE(next.has_value()) << Logs();
  EXPECT_EQ(*next, other);

  // Recorded in etcd, the replica's metrics and log, and shown by status.
  EXPECT_TRUE(absl::StrContains(EtcdValue("may_have_lost_writes"), other_id));
  EXPECT_EQ(testing::SampleOnMetricsPort(replicas_.at(other).metrics_port,
                                         "taskboard_scheduler_ha_may_have_lost_writes"),
            1);
  EXPECT_TRUE(absl::StrContains(ReadFileOrEmpty(File(other, "log").string()), "promoted by force"));
  run = Cli({"admin", "ha", "status", "--scheduler", replicas_.at(other).address});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(absl::StrContains(run.output, "may have lost writes")) << run.output;
  run = Cli({"admin", "ha", "status", "--json", "--scheduler", replicas_.at(other).address});
  EXPECT_TRUE(absl::StrContains(run.output, "\"mayHaveLostWrites\": true")) << run.output;
}

}  // namespace
}  // namespace taskboard
