// Plan approvals with real processes (docs/approvals.md): a plan-and-execute
// run whose planner (an llm agent on tools/fake-llm) planned two steps waits
// for a person with no step asked for, survives a SIGKILL of the scheduler,
// refuses an invalid edited plan over gRPC while still waiting, and runs the
// edited plan a person approves instead of the planner's.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::UnorderedElementsAre;

constexpr char kScript[] = R"yaml(rules:
  - name: plan
    match: {last_user_contains: Plan the work}
    respond:
      content:
        tasks: [{id: gather, goal: Gather the facts}, {id: compare, goal: Compare, deps: [gather]}]
  - name: gather
    match: {last_user_contains: "Your step (gather)"}
    respond: {content: {summary: gathered, success: true}}
  - name: compare
    match: {last_user_contains: "Your step (compare)"}
    respond: {content: {summary: compared, success: true}}
  - name: only
    match: {last_user_contains: "Your step (only)"}
    respond: {content: {summary: "the one step the person kept", success: true}}
)yaml";

constexpr char kFlow[] = R"yaml(
name: approve-plan
kind: plan_and_execute
planAndExecute:
  goal: Find out what colour widgets are
  plannerAgent: planner
  executorAgent: worker
  approvePlan: true
)yaml";

bool WaitingForPlan(const v1::Run& run) {
  for (const v1::Task& task : run.tasks()) {
    if (task.task_id() == "approve-plan-1" && task.state() == v1::TASK_STATE_RUNNING) return true;
  }
  return false;
}

class PlanApprovalsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), kScript);
    ASSERT_THAT(llm.status(), IsOk());
    llm_ = *std::move(llm);
    const std::filesystem::path agents = dir_.path() / "agents";
    std::filesystem::create_directory(agents);
    for (const std::string name : {"planner", "worker"}) {
      std::ofstream(agents / (name + ".md"))
          << testing::LlmAgentFileText(name, llm_->base_url(), "", "You help.");
    }
    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents.string();
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
  }

  std::vector<std::string> RulesAsked() const {
    std::vector<std::string> names;
    for (const Json& entry : llm_->LogEntries()) names.push_back(entry.value("rule_name", ""));
    return names;
  }

  grpc::Status Decide(const v1::DecideApprovalRequest& request) {
    grpc::ClientContext context;
    v1::DecideApprovalResponse response;
    return cluster_->client().DecideApproval(&context, request, &response);
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(PlanApprovalsTest, SchedulerKilledWhileWaiting_EditedPlanRunsInstead) {
  absl::StatusOr<std::string> run_id = cluster_->Submit(kFlow);
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster_->WaitUntil(*run_id, WaitingForPlan).status(), IsOk());

  cluster_->KillScheduler(SIGKILL);
  ASSERT_THAT(cluster_->StartScheduler(), IsOk());

  v1::ListApprovalsResponse listed;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(cluster_->client().ListApprovals(&context, {}, &listed).ok());
  }
  ASSERT_EQ(listed.approvals_size(), 1);
  EXPECT_EQ(listed.approvals(0).step_id(), "approve-plan-1");
  EXPECT_THAT(listed.approvals(0).approval().prompt(),
              HasSubstr("1. gather: Gather the facts\n2. compare: Compare (after gather)"));

  v1::DecideApprovalRequest request;
  request.set_run_id(*run_id);
  request.set_step_id("approve-plan-1");
  request.set_decision("approve");
  request.set_edited_plan(R"({"tasks": [{"id": "only", "goal": "X", "deps": ["gone"]}]})");
  grpc::Status invalid = Decide(request);
  EXPECT_EQ(invalid.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(invalid.error_message(), HasSubstr("the edited plan is invalid"));
  EXPECT_THAT(invalid.error_message(), HasSubstr("gone"));

  request.set_edited_plan(R"({"tasks": [{"id": "only", "goal": "Say what colour they are"}]})");
  grpc::Status decided = Decide(request);
  ASSERT_TRUE(decided.ok()) << decided.error_message();

  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();
  EXPECT_THAT(run->output(), HasSubstr("the one step the person kept"));
  EXPECT_THAT(RulesAsked(), UnorderedElementsAre("plan", "only"));
}

}  // namespace
}  // namespace taskboard
