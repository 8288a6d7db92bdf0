// A nested plan-and-execute run across real processes: a scheduler, a worker
// whose agents are all llm agents, and tools/fake-llm as the model over real
// HTTP. Every plan step is carried out by a child supervisor run; the
// children share the request's tool cache and ledger, so the second step's
// coder is told what the first one read and its own read is a cache hit.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::SizeIs;

// Rules are tried in order; each agent is told apart by its system prompt.
constexpr char kScript[] = R"(rules:
  - name: outer-plan
    match: {system_contains: outer planner}
    respond:
      content:
        tasks:
          - {id: storage, goal: Migrate storage}
          - {id: http, goal: Migrate handlers, deps: [storage]}
  - name: report
    match: {system_contains: report writer}
    respond: {content: migration report}
  - name: step-plan
    match: {system_contains: step lead, last_user_contains: Split the goal}
    respond:
      content: {tasks: [{id: edit, goal: Edit the files}]}
  - name: step-review
    match: {system_contains: step lead, last_user_contains: Review each result}
    respond:
      content:
        assessments: [{task_id: edit, verdict: accepted, feedback: fine, score: 0.9}]
  - name: step-result-http
    match: {system_contains: step lead, last_user_contains: Migrate handlers}
    respond: {content: handlers migrated}
  - name: step-result-storage
    match: {system_contains: step lead}
    respond: {content: storage migrated}
  - name: coder-read
    match: {system_contains: coder, has_tool_results: false}
    respond:
      tool_calls:
        - name: read_file
          arguments: {path: go.mod}
  - name: coder-done
    match: {system_contains: coder}
    respond: {content: edited go.mod}
)";

constexpr char kFlow[] = R"(
name: migrate
kind: plan_and_execute
toolCache:
  tools:
    read_file: {scope: request}   # shared by the child runs of the request
planAndExecute:
  goal: Migrate the billing service to the v2 client
  plannerAgent: planner
  synthesizerAgent: writer
  stepExecutor:
    plannerAgent: lead
    workerAgent: coder
    reviewerAgent: lead
    synthesizerAgent: lead
)";

class NestedRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), kScript);
    ASSERT_THAT(llm.status(), IsOk());
    llm_ = *std::move(llm);

    const std::filesystem::path agents = dir_.path() / "agents";
    std::filesystem::create_directory(agents);
    auto agent = [&](const std::string& name, const std::string& system,
                     const std::string& fields) {
      std::ofstream(agents / (name + ".md"))
          << testing::LlmAgentFileText(name, llm_->base_url(), fields, system);
    };
    agent("planner", "You are the outer planner.", "");
    agent("writer", "You are the report writer.", "");
    agent("lead", "You are the step lead.", "");
    agent("coder", "You are a coder.", "tools: [read_file]\n");

    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents.string();
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
    std::ofstream(cluster_->dir() / "go.mod") << "module billing\n";
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(NestedRunsTest, EveryStepRunsAsAChildSupervisorSharingTheRequestsCacheAndLedger) {
  absl::StatusOr<std::string> run_id = cluster_->Submit(kFlow);
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  EXPECT_EQ(run->output(), "migration report");
  ASSERT_THAT(run->child_run_ids(), SizeIs(2));

  // Both children are runs of their own, listed under the parent.
  v1::ListRunsRequest list;
  list.set_parent_run_id(*run_id);
  v1::ListRunsResponse listed;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_->client().ListRuns(&context, list, &listed).ok());
  ASSERT_THAT(listed.runs(), SizeIs(2));
  for (const v1::Run& child : listed.runs()) {
    EXPECT_EQ(child.kind(), v1::FLOW_KIND_SUPERVISOR);
    EXPECT_EQ(child.status(), v1::RUN_STATUS_COMPLETED) << child.error();
    EXPECT_EQ(child.root_run_id(), *run_id);
  }
  const std::string first = run->child_run_ids(0);
  const std::string second = run->child_run_ids(1);
  std::vector<std::string> step_outputs;
  for (const v1::Task& task : run->tasks()) {
    if (task.role() == "step") step_outputs.push_back(task.task_id() + ": " + task.output());
  }
  EXPECT_THAT(step_outputs, ElementsAre("http: handlers migrated", "storage: storage migrated"));

  // The second child's read of go.mod was served from the cache the first
  // child's read filled: one request, one real read.
  absl::StatusOr<std::vector<v1::Observation>> first_calls = cluster_->ToolCalls(first, "edit");
  ASSERT_THAT(first_calls.status(), IsOk());
  ASSERT_THAT(*first_calls, SizeIs(1));
  EXPECT_FALSE((*first_calls)[0].cached());
  absl::StatusOr<std::vector<v1::Observation>> second_calls = cluster_->ToolCalls(second, "edit");
  ASSERT_THAT(second_calls.status(), IsOk());
  ASSERT_THAT(*second_calls, SizeIs(1));
  EXPECT_TRUE((*second_calls)[0].cached());
  EXPECT_EQ((*second_calls)[0].source_task().run_id(), first);

  // And the second child's coder was told what the first one read (the
  // request's recent trajectory), before it asked for anything.
  bool saw_prior_work = false;
  for (const Json& request : llm_->Requests()) {
    const std::string system = request["messages"][0]["content"].get<std::string>();
    const std::string user = request["messages"][1]["content"].get<std::string>();
    if (system.find("coder") == std::string::npos ||
        user.find("Migrate handlers") == std::string::npos) {
      continue;
    }
    EXPECT_THAT(user, HasSubstr("## Prior work"));
    EXPECT_THAT(user, HasSubstr(R"(read_file({"path":"go.mod"}))"));
    saw_prior_work = true;
  }
  EXPECT_TRUE(saw_prior_work) << "no coder request for the second step";
}

}  // namespace
}  // namespace taskboard
