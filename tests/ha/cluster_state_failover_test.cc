// The cluster-wide state of a replicated scheduler (docs/high-availability.md)
// is the same after a failover: three real taskboard-scheduler replicas on a
// real 3-member etcd, one worker given the three addresses, a scripted model
// (tools/fake-llm) and the scheduler's --llm-limits. On the leader, through
// the public gRPC API as a client would, the test establishes and reads
// back
// - saved flows: two versions of one name;
// - an idempotency key: a keyed SubmitRun;
// - an approval: a run waiting at an approval gate, listed pending;
// - the tool cache: a run calling the session-scoped cacheable tool
//   `lookup` once (counted from the tool's own log), GetCacheStats;
// - LLM usage and limits: a run whose llm agent calls the model, billed at
//   the limits file's prices under a run budget, and GetUsage.
// Then it SIGKILLs the leader, waits for the next one (which must be the
// follower the in-sync set named) and reads each of them there: the same
// flows, the same run for the key (existing), the approval still pending
// and approvable to completion, a second run of the same tool key served
// from the cache without executing the tool, and the same usage.
//
// Tenant budgets (GetUsageResponse.budgets) need --auth-tokens, which would
// make replication and every call here need tokens too; the run's budget
// and the usage rows stand for the LLM state instead (budgets stays empty
// on both leaders, which is compared too).

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "scheduler/ha/in_sync_set.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tests/ha/replica_calls.h"
#include "tests/ha/replica_cluster.h"
#include "tests/testing/chaos_helpers.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using google::protobuf::util::MessageDifferencer;
using testing::ReplicaCluster;

constexpr char kFlowName[] = "cluster-state";
constexpr char kKey[] = "cluster-state-key";
constexpr char kTopic[] = "failover";

std::string SavedFlowText(int version) {
  return absl::StrCat("name: ", kFlowName, "\nphases:\n  - id: greet\n    agent: echo\n",
                      "    task: echo saved version ", version, "\n");
}

constexpr char kApprovalFlow[] = R"(name: approve-failover
phases:
  - id: build
    agent: echo
    task: echo built
  - id: ok
    type: approval
    prompt: "Release {steps.build.output}?"
    dependsOn: [build]
  - id: ship
    agent: echo
    task: echo shipping after the failover
    dependsOn: [ok]
)";

// One model call, billed against the run's budget at the limits' prices.
constexpr char kLlmFlow[] = R"(name: llm-failover
budget: {usd: 1}
phases:
  - id: write
    agent: writer
    task: write one line
)";

constexpr char kLlmScript[] = R"(rules:
  - name: answer
    respond:
      content: written
      usage: {prompt_tokens: 10, completion_tokens: 5}
)";

constexpr char kLimits[] = R"(models:
  fake-model:
    rpm: 600
    price: {input: 1, output: 2}
)";

std::string ToolFlow(const std::string& name) {
  return testing::OnePhaseFlow(name, "echo",
                               absl::StrCat("tool lookup {\"topic\":\"", kTopic, "\"}"));
}

bool WaitingForApproval(const v1::Run& run) {
  for (const v1::Task& task : run.tasks()) {
    if (task.task_id() == "ok" && task.state() == v1::TASK_STATE_RUNNING) return true;
  }
  return false;
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return context;
}

// What the test reads from a leader, to compare across the failover.
struct SavedFlows {
  v1::SavedFlow first, second, latest;
  v1::ListFlowsResponse list;
};

class ClusterStateFailoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directory(agents_dir());
    std::filesystem::create_directory(tools_dir());
    testing::LoggingAgents(agents_dir(), {{"echo", executions_log()}});
    // Session scope: a later run of the session may reuse the result.
    testing::WriteLookupTool(tools_dir(), tool_log(), "0", "session");
    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), kLlmScript);
    ASSERT_TRUE(llm.ok()) << llm.status();
    llm_ = *std::move(llm);
    std::ofstream(agents_dir() / "writer.md") << testing::LlmAgentFileText(
        "writer", llm_->base_url(), "maxAttempts: 1\nmaxTokens: 20\n", "You write one line.");
    std::ofstream(limits_path()) << kLimits;

    testing::StartReplicasOrSkip({.scheduler_flags = {"--llm-limits", limits_path().string()},
                                  .workers = 1,
                                  .agents_dir = agents_dir().string(),
                                  .worker_flags = {"--tools", tools_dir().string()}},
                                 &cluster_);
  }

  std::filesystem::path agents_dir() const { return dir_.path() / "agents"; }
  std::filesystem::path tools_dir() const { return dir_.path() / "tools"; }
  std::filesystem::path executions_log() const { return dir_.path() / "executions.log"; }
  std::filesystem::path tool_log() const { return dir_.path() / "tool-executions.log"; }
  std::filesystem::path limits_path() const { return dir_.path() / "llm-limits.yaml"; }

  // A plain submit (no key) in the tests' session, so session-scoped cache
  // entries are shared with the keyed runs.
  std::string Submit(v1::Scheduler::Stub& stub, const std::string& flow) {
    v1::SubmitRunRequest request;
    request.set_session_id(testing::kSession);
    request.mutable_source()->set_text(flow);
    v1::SubmitRunResponse response;
    const grpc::Status status = stub.SubmitRun(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message() << cluster_->Logs();
    return response.run_id();
  }

  // Polls GetRun until `ready` holds for the run.
  absl::StatusOr<v1::Run> WaitUntil(v1::Scheduler::Stub& stub, const std::string& run_id,
                                    bool (*ready)(const v1::Run&)) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      v1::GetRunRequest request;
      request.set_run_id(run_id);
      v1::GetRunResponse response;
      if (stub.GetRun(Context().get(), request, &response).ok() && ready(response.run())) {
        return response.run();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return absl::DeadlineExceededError(absl::StrCat("run ", run_id, " never got ready"));
  }

  v1::Run Completed(v1::Scheduler::Stub& stub, const std::string& run_id) {
    absl::StatusOr<v1::Run> run = testing::WaitForRunToFinish(stub, run_id, absl::Seconds(60));
    EXPECT_TRUE(run.ok()) << run.status() << cluster_->Logs();
    if (!run.ok()) return {};
    EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
    return *run;
  }

  SavedFlows ReadFlows(v1::Scheduler::Stub& stub) {
    SavedFlows flows;
    for (auto [version, into] : {std::pair<int, v1::SavedFlow*>{1, &flows.first},
                                 {2, &flows.second},
                                 {0, &flows.latest}}) {
      v1::GetFlowRequest request;
      request.set_name(kFlowName);
      request.set_version(version);
      v1::GetFlowResponse response;
      const grpc::Status status = stub.GetFlow(Context().get(), request, &response);
      EXPECT_TRUE(status.ok()) << "GetFlow version " << version << ": " << status.error_message();
      *into = response.flow();
    }
    const grpc::Status status = stub.ListFlows(Context().get(), {}, &flows.list);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return flows;
  }

  v1::ListApprovalsResponse Approvals(v1::Scheduler::Stub& stub) {
    v1::ListApprovalsResponse response;
    const grpc::Status status = stub.ListApprovals(Context().get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  v1::GetCacheStatsResponse CacheStats(v1::Scheduler::Stub& stub) {
    v1::GetCacheStatsResponse response;
    const grpc::Status status = stub.GetCacheStats(Context().get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  v1::GetUsageResponse Usage(v1::Scheduler::Stub& stub) {
    v1::GetUsageResponse response;
    const grpc::Status status = stub.GetUsage(Context().get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  // The lookup tool's real executions for kTopic.
  size_t ToolRuns() const {
    std::map<std::string, std::vector<testing::ToolExecution>> executions =
        testing::ToolExecutions(tool_log());
    return executions.contains(kTopic) ? executions.at(kTopic).size() : 0;
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<ReplicaCluster> cluster_;
};

TEST_F(ClusterStateFailoverTest, EveryKindOfClusterState_IsTheSameOnTheNextLeader) {
  std::optional<int> first = cluster_->WaitForOneLeader(absl::Seconds(30));
  ASSERT_TRUE(first.has_value()) << "no single leader" << cluster_->Logs();
  std::unique_ptr<v1::Scheduler::Stub> leader = cluster_->Client(*first);

  // Saved flows: two versions of one name.
  for (int version = 1; version <= 2; ++version) {
    v1::SaveFlowRequest request;
    request.mutable_source()->set_text(SavedFlowText(version));
    v1::SaveFlowResponse response;
    const grpc::Status status = leader->SaveFlow(Context().get(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message() << cluster_->Logs();
    ASSERT_EQ(response.flow().version(), version);
  }
  const SavedFlows flows_before = ReadFlows(*leader);
  EXPECT_EQ(flows_before.second.version(), 2);
  EXPECT_EQ(flows_before.latest.version(), 2);
  EXPECT_EQ(flows_before.first.source(), SavedFlowText(1));
  EXPECT_EQ(flows_before.second.source(), SavedFlowText(2));
  ASSERT_EQ(flows_before.list.flows_size(), 1);

  // An idempotency key: the second submit finds the first run.
  const std::string keyed_flow = testing::OnePhaseFlow("keyed", "echo", "echo keyed");
  v1::SubmitRunResponse keyed;
  ASSERT_TRUE(testing::SubmitKeyed(*leader, keyed_flow, kKey, absl::Seconds(10), &keyed).ok())
      << cluster_->Logs();
  ASSERT_FALSE(keyed.existing());
  {
    v1::SubmitRunResponse again;
    ASSERT_TRUE(testing::SubmitKeyed(*leader, keyed_flow, kKey, absl::Seconds(10), &again).ok());
    EXPECT_TRUE(again.existing());
    EXPECT_EQ(again.run_id(), keyed.run_id());
  }

  // An approval: a run waiting at its gate, listed pending.
  const std::string approval_run = Submit(*leader, kApprovalFlow);
  ASSERT_TRUE(WaitUntil(*leader, approval_run, WaitingForApproval).ok()) << cluster_->Logs();
  const v1::ListApprovalsResponse approvals_before = Approvals(*leader);
  ASSERT_EQ(approvals_before.approvals_size(), 1);
  EXPECT_EQ(approvals_before.approvals(0).run_id(), approval_run);
  EXPECT_EQ(approvals_before.approvals(0).step_id(), "ok");

  // The tool cache: the first call of the key executes the tool once.
  const v1::Run tool_run_before = Completed(*leader, Submit(*leader, ToolFlow("look1")));
  EXPECT_TRUE(absl::StrContains(tool_run_before.output(), "looked up")) << tool_run_before.output();
  ASSERT_EQ(ToolRuns(), 1u);
  const v1::GetCacheStatsResponse cache_before = CacheStats(*leader);
  EXPECT_GE(cache_before.entries(), 1);

  // LLM usage: one model call billed at the limits file's prices.
  const std::string llm_run = Submit(*leader, kLlmFlow);
  const v1::Run llm_run_before = Completed(*leader, llm_run);
  EXPECT_EQ(llm_run_before.billed().input_tokens(), 10);
  EXPECT_EQ(llm_run_before.billed().output_tokens(), 5);
  EXPECT_NEAR(llm_run_before.billed().cost_usd(), (10 * 1 + 5 * 2) / 1e6, 1e-12);
  const v1::GetUsageResponse usage_before = Usage(*leader);
  ASSERT_EQ(usage_before.rows_size(), 1) << usage_before.ShortDebugString();
  EXPECT_EQ(usage_before.rows(0).model(), "fake-model");
  EXPECT_EQ(usage_before.rows(0).requests(), 1);

  // Every write above was acknowledged, so the in-sync follower holds it.
  absl::StatusOr<ha::InSyncSet> in_sync = cluster_->WaitForInSyncSet(*first, absl::Seconds(20));
  ASSERT_TRUE(in_sync.ok()) << in_sync.status();
  cluster_->Kill(*first);
  std::optional<int> next = cluster_->WaitForOneLeader(absl::Seconds(30), *first);
  ASSERT_TRUE(next.has_value()) << "no leader after the kill" << cluster_->Logs();
  EXPECT_NE(
      std::find(in_sync->replicas.begin(), in_sync->replicas.end(), cluster_->ReplicaId(*next)),
      in_sync->replicas.end())
      << cluster_->ReplicaId(*next) << " led, not a member of the in-sync set "
      << absl::StrJoin(in_sync->replicas, ",");
  std::unique_ptr<v1::Scheduler::Stub> successor = cluster_->Client(*next);

  {
    SCOPED_TRACE("saved flows: both versions and the list, as the old leader served them");
    const SavedFlows flows_after = ReadFlows(*successor);
    EXPECT_TRUE(MessageDifferencer::Equals(flows_after.first, flows_before.first))
        << flows_after.first.ShortDebugString();
    EXPECT_TRUE(MessageDifferencer::Equals(flows_after.second, flows_before.second))
        << flows_after.second.ShortDebugString();
    EXPECT_TRUE(MessageDifferencer::Equals(flows_after.latest, flows_before.latest))
        << flows_after.latest.ShortDebugString();
    EXPECT_TRUE(MessageDifferencer::Equals(flows_after.list, flows_before.list))
        << flows_after.list.ShortDebugString();
  }
  {
    SCOPED_TRACE("idempotency key: the same key answers the run it made before the failover");
    v1::SubmitRunResponse again;
    ASSERT_TRUE(testing::SubmitKeyed(*successor, keyed_flow, kKey, absl::Seconds(10), &again).ok())
        << cluster_->Logs();
    EXPECT_TRUE(again.existing());
    EXPECT_EQ(again.run_id(), keyed.run_id());
  }
  {
    SCOPED_TRACE("approval: still pending on the new leader, approved there, the run completes");
    const v1::ListApprovalsResponse approvals_after = Approvals(*successor);
    EXPECT_TRUE(MessageDifferencer::Equals(approvals_after, approvals_before))
        << approvals_after.ShortDebugString();
    v1::DecideApprovalRequest request;
    request.set_run_id(approval_run);
    request.set_step_id("ok");
    request.set_decision("approve");
    v1::DecideApprovalResponse response;
    const grpc::Status decided = successor->DecideApproval(Context().get(), request, &response);
    ASSERT_TRUE(decided.ok()) << decided.error_message();
    const v1::Run run = Completed(*successor, approval_run);
    EXPECT_TRUE(absl::StrContains(run.output(), "shipping after the failover")) << run.output();
  }
  {
    SCOPED_TRACE("tool cache: the key's result is served again without executing the tool");
    const v1::Run run = Completed(*successor, Submit(*successor, ToolFlow("look2")));
    EXPECT_TRUE(absl::StrContains(run.output(), "looked up")) << run.output();
    EXPECT_EQ(ToolRuns(), 1u) << "the tool ran again after the failover";
    const v1::GetCacheStatsResponse cache_after = CacheStats(*successor);
    EXPECT_EQ(cache_after.entries(), cache_before.entries()) << cache_after.ShortDebugString();
    int64_t hits = 0, misses = 0;
    for (const v1::CacheStatsRow& row : cache_after.rows()) {
      if (row.tool() != "lookup") continue;
      hits += row.hits();
      misses += row.misses();
    }
    EXPECT_EQ(hits, 1) << cache_after.ShortDebugString();
    EXPECT_EQ(misses, 0) << cache_after.ShortDebugString();
  }
  {
    SCOPED_TRACE("LLM usage: the same rows and budgets, and the run's bill");
    const v1::GetUsageResponse usage_after = Usage(*successor);
    EXPECT_TRUE(MessageDifferencer::Equals(usage_after, usage_before))
        << "before: " << usage_before.ShortDebugString()
        << "\nafter: " << usage_after.ShortDebugString();
    v1::GetRunRequest request;
    request.set_run_id(llm_run);
    v1::GetRunResponse response;
    ASSERT_TRUE(successor->GetRun(Context().get(), request, &response).ok());
    EXPECT_TRUE(MessageDifferencer::Equals(response.run().billed(), llm_run_before.billed()))
        << response.run().billed().ShortDebugString();
    EXPECT_TRUE(MessageDifferencer::Equals(response.run().budget(), llm_run_before.budget()))
        << response.run().budget().ShortDebugString();
    EXPECT_GT(llm_run_before.budget().usd(), 0);
  }
}

}  // namespace
}  // namespace taskboard
