#include "scheduler/mcp/taskboard_tools.h"

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::mcp {
namespace {

using ::testing::HasSubstr;

// Records every call and answers from a queue of scripted responses.
class FakeSchedulerCalls : public SchedulerCalls {
 public:
  absl::StatusOr<Json> Call(absl::string_view method, const Json& request) override {
    calls.emplace_back(std::string(method), request);
    if (answers.empty()) return absl::InternalError("no scripted answer");
    absl::StatusOr<Json> next = std::move(answers.front());
    answers.pop_front();
    return next;
  }
  std::vector<std::pair<std::string, Json>> calls;
  std::deque<absl::StatusOr<Json>> answers;
};

class TaskboardToolsTest : public ::testing::Test {
 protected:
  TaskboardToolsTest() : tools_(scheduler_, Options()) {}
  static TaskboardToolsOptions Options() {
    TaskboardToolsOptions options;
    options.max_wait_seconds = 5;
    options.poll_interval = absl::Milliseconds(1);
    return options;
  }
  ToolResult Call(const std::string& name, const Json& arguments, const Json& meta = Json()) {
    return tools_.Call(name, arguments, meta);
  }
  FakeSchedulerCalls scheduler_;
  TaskboardTools tools_;
};

TEST_F(TaskboardToolsTest, List_HasTheSevenToolsEachWithAnObjectSchema) {
  std::vector<std::string> names;
  for (const ToolDescription& tool : tools_.List()) {
    names.push_back(tool.name);
    EXPECT_EQ(tool.input_schema["type"], "object") << tool.name;
    EXPECT_FALSE(tool.description.empty()) << tool.name;
  }
  EXPECT_THAT(names, ::testing::ElementsAre("list_flows", "describe_flow", "run_flow", "get_run",
                                            "cancel_run", "list_approvals", "decide_approval"));
}

TEST_F(TaskboardToolsTest, ListFlows_SummarisesNameVersionAndArgs) {
  scheduler_.answers.push_back(Json{{"flows",
                                     {{{"name", "review"},
                                       {"version", "3"},
                                       {"spec",
                                        {{"description", "Reviews"},
                                         {"args", {{{"name", "repo"}, {"required", true}}}},
                                         {"taskflow", Json::object()}}}}}}});
  ToolResult result = Call("list_flows", Json::object());
  ASSERT_FALSE(result.is_error) << result.text;
  EXPECT_EQ(scheduler_.calls[0].first, "ListFlows");
  const Json& flow = result.structured["flows"][0];
  EXPECT_EQ(flow["name"], "review");
  EXPECT_EQ(flow["version"], 3);
  EXPECT_EQ(flow["kind"], "taskflow");
  EXPECT_EQ(flow["args"][0]["name"], "repo");
  EXPECT_EQ(flow["args"][0]["required"], true);
  EXPECT_THAT(result.text, HasSubstr("\"review\""));
}

// The kind comes from the flow kinds' table: every kind a saved flow can have
// is named by its spec's JSON field, and a spec with none has no kind.
TEST_F(TaskboardToolsTest, ListFlows_NamesEveryKindByItsSpecField) {
  const std::vector<std::string> fields = {"taskflow", "planAndExecute", "supervisor", "board"};
  Json flows = Json::array();
  for (const std::string& field : fields) {
    flows.push_back({{"name", field}, {"version", "1"}, {"spec", {{field, Json::object()}}}});
  }
  flows.push_back({{"name", "none"}, {"version", "1"}, {"spec", Json::object()}});
  scheduler_.answers.push_back(Json{{"flows", flows}});
  ToolResult result = Call("list_flows", Json::object());
  ASSERT_FALSE(result.is_error) << result.text;
  for (size_t i = 0; i < fields.size(); ++i) {
    EXPECT_EQ(result.structured["flows"][i]["kind"], fields[i]);
  }
  EXPECT_EQ(result.structured["flows"][fields.size()]["kind"], "");
}

TEST_F(TaskboardToolsTest, DescribeFlow_IncludesTheSource) {
  scheduler_.answers.push_back(
      Json{{"flow", {{"name", "review"}, {"version", "1"}, {"source", "name: review\n"}}}});
  ToolResult result = Call("describe_flow", {{"name", "review"}});
  ASSERT_FALSE(result.is_error) << result.text;
  EXPECT_EQ(scheduler_.calls[0].second["name"], "review");
  EXPECT_EQ(result.structured["source"], "name: review\n");
}

TEST_F(TaskboardToolsTest, RunFlow_WithoutWait_ReturnsTheRunId) {
  scheduler_.answers.push_back(Json{{"runId", "r-1"}});
  ToolResult result = Call("run_flow", {{"name", "review"}, {"args", {{"repo", "x"}}}});
  ASSERT_FALSE(result.is_error) << result.text;
  ASSERT_EQ(scheduler_.calls.size(), 1u);
  EXPECT_EQ(scheduler_.calls[0].first, "SubmitRun");
  EXPECT_EQ(scheduler_.calls[0].second["saved"]["name"], "review");
  EXPECT_EQ(scheduler_.calls[0].second["args"]["repo"], "x");
  EXPECT_EQ(result.structured["run_id"], "r-1");
  EXPECT_EQ(result.structured["finished"], false);
}

TEST_F(TaskboardToolsTest, RunFlow_OutsideATask_SubmitsARootRun) {
  scheduler_.answers.push_back(Json{{"runId", "r-1"}});
  ASSERT_FALSE(Call("run_flow", {{"name", "review"}}).is_error);
  ASSERT_EQ(scheduler_.calls.size(), 1u);
  EXPECT_FALSE(scheduler_.calls[0].second.contains("startedBy"));
}

TEST(TaskboardToolsStartedBy, RunFlow_StartedForATask_SubmitsAsThatTask) {
  FakeSchedulerCalls scheduler;
  TaskboardToolsOptions options;
  options.started_by_run_id = "r-env";
  options.started_by_task_id = "t-env";
  TaskboardTools tools(scheduler, options);
  scheduler.answers.push_back(Json{{"runId", "r-1"}});
  ASSERT_FALSE(tools.Call("run_flow", {{"name", "review"}}, Json()).is_error);
  ASSERT_EQ(scheduler.calls.size(), 1u);
  EXPECT_EQ(scheduler.calls[0].second["startedBy"],
            (Json{{"runId", "r-env"}, {"taskId", "t-env"}}));

  // A call's FlowState _meta names the task instead.
  scheduler.answers.push_back(Json{{"runId", "r-2"}});
  const Json meta = {{"taskboard/flow_state", {{"run_id", "r-meta"}, {"task_id", "t-meta"}}}};
  ASSERT_FALSE(tools.Call("run_flow", {{"name", "review"}}, meta).is_error);
  EXPECT_EQ(scheduler.calls[1].second["startedBy"],
            (Json{{"runId", "r-meta"}, {"taskId", "t-meta"}}));
}

TEST_F(TaskboardToolsTest, RunFlow_MetaNamingATask_SubmitsAsThatTask_ARefusalIsAToolError) {
  scheduler_.answers.push_back(absl::FailedPreconditionError(
      "run r-0 is at depth 2; ... (scheduler flag --max-run-depth=2)"));
  const Json meta = {{"taskboard/flow_state", {{"run_id", "r-0"}, {"task_id", "main"}}}};
  ToolResult result = Call("run_flow", {{"name", "review"}}, meta);
  ASSERT_EQ(scheduler_.calls.size(), 1u);
  EXPECT_EQ(scheduler_.calls[0].second["startedBy"], (Json{{"runId", "r-0"}, {"taskId", "main"}}));
  EXPECT_TRUE(result.is_error);
  EXPECT_THAT(result.text, HasSubstr("run_flow failed: FAILED_PRECONDITION"));
  EXPECT_THAT(result.text, HasSubstr("--max-run-depth"));
}

TEST_F(TaskboardToolsTest, RunFlow_WithWait_PollsUntilTheRunEndsAndReturnsItsOutput) {
  scheduler_.answers.push_back(Json{{"runId", "r-1"}});
  scheduler_.answers.push_back(Json{{"run", {{"runId", "r-1"}, {"status", "RUN_STATUS_RUNNING"}}}});
  scheduler_.answers.push_back(
      Json{{"run", {{"runId", "r-1"}, {"status", "RUN_STATUS_COMPLETED"}, {"output", "done"}}}});
  ToolResult result = Call("run_flow", {{"name", "review"}, {"wait_seconds", 5}});
  ASSERT_FALSE(result.is_error) << result.text;
  EXPECT_EQ(scheduler_.calls.size(), 3u);
  EXPECT_EQ(result.structured["status"], "completed");
  EXPECT_EQ(result.structured["finished"], true);
  EXPECT_EQ(result.structured["output"], "done");
}

TEST_F(TaskboardToolsTest, RunFlow_WaitOverTheBound_IsAToolErrorWithoutACall) {
  ToolResult result = Call("run_flow", {{"name", "review"}, {"wait_seconds", 6}});
  EXPECT_TRUE(result.is_error);
  EXPECT_THAT(result.text, HasSubstr("at most 5"));
  EXPECT_TRUE(scheduler_.calls.empty());
}

TEST_F(TaskboardToolsTest, GetRun_MissingRunId_IsAToolErrorWithoutACall) {
  ToolResult result = Call("get_run", Json::object());
  EXPECT_TRUE(result.is_error);
  EXPECT_THAT(result.text, HasSubstr("'run_id' is required"));
  EXPECT_TRUE(scheduler_.calls.empty());
}

TEST_F(TaskboardToolsTest, GetRun_UnknownArgument_IsAToolError) {
  ToolResult result = Call("get_run", {{"run_id", "r"}, {"tenant", "other"}});
  EXPECT_TRUE(result.is_error);
  EXPECT_THAT(result.text, HasSubstr("unknown argument 'tenant'"));
}

TEST_F(TaskboardToolsTest, GetRun_RefusedByTheScheduler_IsAToolErrorNamingTheCode) {
  scheduler_.answers.push_back(absl::NotFoundError("run 'r-9' not found"));
  ToolResult result = Call("get_run", {{"run_id", "r-9"}});
  EXPECT_TRUE(result.is_error);
  EXPECT_EQ(result.text, "get_run failed: NOT_FOUND: run 'r-9' not found");
}

TEST_F(TaskboardToolsTest, CancelRun_AnswersTheStatus) {
  scheduler_.answers.push_back(Json{{"status", "RUN_STATUS_CANCELLED"}});
  ToolResult result = Call("cancel_run", {{"run_id", "r-1"}, {"reason", "enough"}});
  ASSERT_FALSE(result.is_error) << result.text;
  EXPECT_EQ(scheduler_.calls[0].second["reason"], "enough");
  EXPECT_EQ(result.structured["status"], "cancelled");
}

TEST_F(TaskboardToolsTest, ListApprovals_FlattensEachPendingStep) {
  scheduler_.answers.push_back(
      Json{{"approvals",
            {{{"runId", "r-1"},
              {"stepId", "ship"},
              {"flowName", "release"},
              {"approval", {{"prompt", "Ship it?"}, {"choices", {"now", "later"}}}}}}}});
  ToolResult result = Call("list_approvals", Json::object());
  ASSERT_FALSE(result.is_error) << result.text;
  const Json& approval = result.structured["approvals"][0];
  EXPECT_EQ(approval["run_id"], "r-1");
  EXPECT_EQ(approval["step_id"], "ship");
  EXPECT_EQ(approval["prompt"], "Ship it?");
  EXPECT_EQ(approval["choices"][1], "later");
}

TEST_F(TaskboardToolsTest, DecideApproval_SendsTheDecision) {
  scheduler_.answers.push_back(Json{{"task", {{"state", "TASK_STATE_COMPLETED"}}}});
  ToolResult result =
      Call("decide_approval",
           {{"run_id", "r-1"}, {"step_id", "ship"}, {"decision", "approve"}, {"comment", "lgtm"}});
  ASSERT_FALSE(result.is_error) << result.text;
  EXPECT_EQ(scheduler_.calls[0].first, "DecideApproval");
  EXPECT_EQ(scheduler_.calls[0].second["runId"], "r-1");
  EXPECT_EQ(scheduler_.calls[0].second["decision"], "approve");
  EXPECT_EQ(scheduler_.calls[0].second["comment"], "lgtm");
  EXPECT_EQ(result.structured["decided"], true);
}

TEST_F(TaskboardToolsTest, DecideApproval_UnknownDecision_IsAToolError) {
  ToolResult result =
      Call("decide_approval", {{"run_id", "r-1"}, {"step_id", "ship"}, {"decision", "maybe"}});
  EXPECT_TRUE(result.is_error);
  EXPECT_THAT(result.text, HasSubstr("one of"));
  EXPECT_TRUE(scheduler_.calls.empty());
}

}  // namespace
}  // namespace taskboard::mcp
