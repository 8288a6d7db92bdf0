// Tools that know where they run (docs/mcp.md#flowstate), across real
// processes: a scheduler, a worker and command agents that run their prompt
// as a shell line, so a task can call `taskboard state` the way a user's
// script would. Shown: a value set by one task is read by a later task of
// the run and by the run's child runs (which write into the same root map);
// another run does not see it; values survive a scheduler SIGKILL; a value
// over a limit is refused naming the flag and the worker keeps serving; a
// finished task's token reaches nothing; an LLM agent over tools/fake-llm
// uses the built-in state tools; and a Streamable HTTP MCP server's header
// secret never shows in the worker's logs or in errors.

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/child_process.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "taskboard/v1/worker.grpc.pb.h"
#include "tests/testing/cluster.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Waits up to 30 s for `path` to exist.
bool WaitForFile(const std::filesystem::path& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A command agent `name` running the shell script `body`.
void WriteCommandAgent(const std::filesystem::path& dir, const std::string& name,
                       const std::string& body) {
  std::ofstream(dir / (name + ".sh")) << "#!/bin/sh\n" << body;
  std::filesystem::permissions(dir / (name + ".sh"), std::filesystem::perms::owner_all);
  std::ofstream(dir / (name + ".yaml"))
      << "name: " << name << "\ntype: command\ncommand: [\"./" << name << ".sh\"]\n";
}

const v1::Task* FindTask(const v1::Run& run, const std::string& id) {
  for (const v1::Task& task : run.tasks()) {
    if (task.task_id() == id) return &task;
  }
  return nullptr;
}

class FlowStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    agents_ = dir_.path() / "agents";
    std::filesystem::create_directory(agents_);
    // Runs its prompt as a shell line.
    WriteCommandAgent(agents_, "sh", "eval \"$TASKBOARD_PROMPT\"\n");
    // Plans two steps; each is a child run of the saved flow `step`.
    WriteCommandAgent(agents_, "planner", R"~(taskboard state set planned-by "$TASKBOARD_RUN_ID"
printf '%s\n' '{"tasks": [{"id": "one", "goal": "first"}, {"id": "two", "goal": "second", "deps": ["one"]}]}'
)~");
    // In a child run: reads the root's value, writes one of its own, and
    // prints the whole map and where it runs.
    WriteCommandAgent(agents_, "stepper", R"~(set -e
printf 'planned-by=%s\n' "$(taskboard state get planned-by)"
taskboard state set "child-$TASKBOARD_RUN_ID" "$TASKBOARD_PROMPT"
printf 'list=%s\n' "$(taskboard state list)"
printf 'info=%s\n' "$(taskboard state info)"
)~");
  }

  void Start(std::vector<std::string> scheduler_flags = {}) {
    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents_.string();
    options.scheduler_flags = std::move(scheduler_flags);
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
  }

  absl::StatusOr<v1::Run> RunFlow(const std::string& flow) {
    absl::StatusOr<std::string> run_id = cluster_->Submit(flow);
    if (!run_id.ok()) return run_id.status();
    return cluster_->WaitForRun(*run_id, 60'000);
  }

  absl::Status SaveFlow(const std::string& text) {
    v1::SaveFlowRequest request;
    request.mutable_source()->set_text(text);
    v1::SaveFlowResponse response;
    grpc::ClientContext context;
    grpc::Status status = cluster_->client().SaveFlow(&context, request, &response);
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  }

  testing::TempDir dir_;
  std::filesystem::path agents_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(FlowStateTest, CommandAgent_SetInOneTask_ReadByALaterTask_NotByAnotherRun) {
  Start();
  absl::StatusOr<v1::Run> run = RunFlow(R"~(
name: state-across-tasks
phases:
  - id: write
    agent: sh
    task: |
      taskboard state set greeting hello && taskboard state set --context cfg '{"n": 1}' && echo wrote
  - id: read
    agent: sh
    task: |
      printf '%s|%s|' "$(taskboard state get greeting)" "$(taskboard state get --context cfg)"; taskboard state info
    dependsOn: [write]
)~");
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  const v1::Task* read = FindTask(*run, "read");
  ASSERT_NE(read, nullptr);
  EXPECT_THAT(read->output(), HasSubstr(R"(hello|{"n":1}|)"));
  EXPECT_THAT(read->output(), HasSubstr(absl::StrCat(R"("run_id":")", run->run_id(), "\"")));
  EXPECT_THAT(read->output(), HasSubstr(R"("task_id":"read")"));
  EXPECT_THAT(read->output(), HasSubstr(R"("is_child":false)"));

  // Another run has a map of its own: the key is not set there.
  absl::StatusOr<v1::Run> other = RunFlow(R"~(
name: other-run
phases:
  - id: read
    agent: sh
    task: |
      taskboard state get greeting; echo "exit=$?"
)~");
  ASSERT_THAT(other.status(), IsOk());
  ASSERT_EQ(other->status(), v1::RUN_STATUS_COMPLETED) << other->error() << cluster_->Logs();
  EXPECT_THAT(other->output(), HasSubstr("exit=3"));
  EXPECT_THAT(other->output(), Not(HasSubstr("hello")));
}

TEST_F(FlowStateTest, ChildRuns_ReadAndWriteTheRootsMap) {
  Start();
  ASSERT_THAT(SaveFlow(R"~(
name: step
args:
  goal: {required: true}
phases:
  - id: do
    agent: stepper
    task: "{args.goal}"
)~"),
              IsOk());
  absl::StatusOr<v1::Run> run = RunFlow(R"~(
name: planned
planAndExecute:
  goal: Two steps
  plannerAgent: planner
  stepExecutor: {flow: step}
)~");
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  ASSERT_EQ(run->child_run_ids_size(), 2);
  std::map<std::string, v1::Run> children;
  for (const std::string& child_id : run->child_run_ids()) {
    absl::StatusOr<v1::Run> child = cluster_->GetRun(child_id);
    ASSERT_THAT(child.status(), IsOk());
    children[child->args().fields().at("goal").string_value()] = *child;
  }
  ASSERT_EQ(children.count("first"), 1u);
  ASSERT_EQ(children.count("second"), 1u);
  for (const auto& [goal, child] : children) {
    SCOPED_TRACE(goal);
    // The root's value, set by the planner (a task of the root run).
    EXPECT_THAT(child.output(), HasSubstr(absl::StrCat("planned-by=", run->run_id())));
    EXPECT_THAT(child.output(), HasSubstr(absl::StrCat(R"("parent_run_id":")", run->run_id())));
    EXPECT_THAT(child.output(), HasSubstr(absl::StrCat(R"("root_run_id":")", run->run_id())));
    EXPECT_THAT(child.output(), HasSubstr(R"("is_child":true)"));
  }
  // The second step ran after the first and sees what the first child wrote:
  // both write into the root's one map.
  EXPECT_THAT(children["second"].output(),
              HasSubstr(absl::StrCat(R"("child-)", children["first"].run_id(), R"(":"first")")));
}

TEST_F(FlowStateTest, Values_SurviveASchedulerSigkill) {
  Start();
  const std::filesystem::path written = dir_.path() / "written";
  const std::filesystem::path released = dir_.path() / "released";
  absl::StatusOr<std::string> run_id = cluster_->Submit(
      absl::StrCat("name: survive\nphases:\n  - id: write\n    agent: sh\n"
                   "    task: taskboard state set kept 'across a crash' && touch ",
                   written.string(), " && while [ ! -e ", released.string(),
                   " ]; do sleep 0.05; done; echo done\n"
                   "  - id: read\n    agent: sh\n    task: taskboard state get kept\n"
                   "    dependsOn: [write]\n"));
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_TRUE(WaitForFile(written)) << cluster_->Logs();
  // `set` returned: the value is on disk. Kill before any later write.
  cluster_->KillScheduler(SIGKILL);
  ASSERT_THAT(cluster_->StartScheduler(), IsOk());
  std::ofstream(released) << "go";
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id, 60'000);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  const v1::Task* read = FindTask(*run, "read");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->output(), "across a crash\n");
}

TEST_F(FlowStateTest, OverTheLimit_RefusedNamingTheFlag_TheWorkerKeepsServing) {
  Start({"--run-state-max-value-bytes", "16", "--run-state-max-keys", "2"});
  absl::StatusOr<v1::Run> run = RunFlow(R"~(
name: limits
phases:
  - id: try
    agent: sh
    task: |
      taskboard state set big 0123456789abcdefXYZ 2>&1; taskboard state set a 1; taskboard state set b 2; taskboard state set c 3 2>&1; taskboard state get a
  - id: after
    agent: sh
    task: |
      taskboard state list
    dependsOn: [try]
)~");
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  const v1::Task* tried = FindTask(*run, "try");
  ASSERT_NE(tried, nullptr);
  EXPECT_THAT(tried->output(), HasSubstr("taskboard state set: "));
  EXPECT_THAT(tried->output(), HasSubstr("'big' is 19 bytes"));
  EXPECT_THAT(tried->output(), HasSubstr("--run-state-max-value-bytes"));
  EXPECT_THAT(tried->output(), HasSubstr("--run-state-max-keys"));
  EXPECT_THAT(tried->output(), ::testing::EndsWith("1\n"));
  const v1::Task* after = FindTask(*run, "after");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->output(), "{\"a\":\"1\",\"b\":\"2\"}\n");
}

TEST_F(FlowStateTest, AFinishedTasksToken_ReachesNothing_AndTheSchedulerRefusesAStaleLease) {
  Start();
  const std::filesystem::path saved = dir_.path() / "saved-token";
  absl::StatusOr<v1::Run> first = RunFlow(absl::StrCat(
      "name: leaks-its-token\nphases:\n  - id: leak\n    agent: sh\n"
      "    task: taskboard state set secret s3cret && printf '%s' \"$TASKBOARD_TASK_TOKEN\" > ",
      saved.string(), " && echo ok\n"));
  ASSERT_THAT(first.status(), IsOk());
  ASSERT_EQ(first->status(), v1::RUN_STATUS_COMPLETED) << first->error() << cluster_->Logs();
  // Another run's task presents the finished task's token on the socket.
  absl::StatusOr<v1::Run> second = RunFlow(
      absl::StrCat("name: uses-a-stale-token\nphases:\n  - id: steal\n    agent: sh\n"
                   "    task: TASKBOARD_TASK_TOKEN=$(cat ",
                   saved.string(), ") taskboard state get secret 2>&1; echo \"exit=$?\"\n"));
  ASSERT_THAT(second.status(), IsOk());
  ASSERT_EQ(second->status(), v1::RUN_STATUS_COMPLETED) << second->error() << cluster_->Logs();
  EXPECT_THAT(second->output(), HasSubstr("the task token is not valid"));
  EXPECT_THAT(second->output(), HasSubstr("exit=1"));
  EXPECT_THAT(second->output(), Not(HasSubstr("s3cret")));

  // The scheduler itself refuses a lease that is no longer a running task's,
  // whoever asks.
  auto channel = grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials());
  std::unique_ptr<v1::WorkerGateway::Stub> stub = v1::WorkerGateway::NewStub(channel);
  v1::RunStateRequest request;
  request.set_task_id("leak");
  request.set_lease_id("not-a-lease");
  request.set_op(v1::RunStateRequest::OP_GET);
  request.set_key("secret");
  grpc::ClientContext context;
  v1::RunStateResponse response;
  grpc::Status status = stub->RunState(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("does not hold this lease"));
  EXPECT_FALSE(response.found());
}

constexpr char kLlmScript[] = R"~(rules:
  - name: write-and-look
    match: {turn: 1}
    respond:
      tool_calls:
        - name: state_set
          arguments: {key: color, value: blue}
        - name: state_set
          arguments: {key: plan, value: {steps: 2}, space: context}
        - name: flow_state
          arguments: {conversation: true}
  - name: read-back
    match: {turn: 2}
    respond:
      tool_calls:
        - name: state_get
          arguments: {key: color}
  - name: answer
    match: {turn: 3, tool_result_contains: '"value":"blue"'}
    respond:
      content: "the color is blue"
)~";

TEST_F(FlowStateTest, LlmAgent_UsesTheBuiltInStateTools_ACommandTaskReadsTheValue) {
  absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
      testing::FakeLlm::StartWithScript(dir_.path(), kLlmScript);
  ASSERT_THAT(llm.status(), IsOk());
  std::ofstream(agents_ / "thinker.md") << testing::LlmAgentFileText(
      "thinker", (*llm)->base_url(), "", "You keep notes in the run's storage.");
  Start();
  absl::StatusOr<v1::Run> run = RunFlow(R"~(
name: llm-state
phases:
  - id: think
    agent: thinker
    task: Remember a color.
  - id: check
    agent: sh
    task: |
      printf '%s %s' "$(taskboard state get color)" "$(taskboard state get --context plan)"
    dependsOn: [think]
)~");
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  const v1::Task* think = FindTask(*run, "think");
  ASSERT_NE(think, nullptr);
  EXPECT_EQ(think->output(), "the color is blue");
  const v1::Task* check = FindTask(*run, "check");
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->output(), R"(blue {"steps":2})");

  // The model was offered the tools; the ledger holds the calls, never
  // cached; flow_state told the model where it runs and what was said.
  const std::vector<Json> requests = (*llm)->Requests();
  ASSERT_GE(requests.size(), 1u);
  std::vector<std::string> offered;
  for (const Json& tool : requests[0]["tools"]) {
    offered.push_back(tool["function"]["name"].get<std::string>());
  }
  EXPECT_THAT(offered, ::testing::IsSupersetOf(
                           {"flow_state", "state_get", "state_set", "state_list", "state_delete"}));
  absl::StatusOr<std::vector<v1::Observation>> calls = cluster_->ToolCalls(run->run_id(), "think");
  ASSERT_THAT(calls.status(), IsOk());
  ASSERT_EQ(calls->size(), 4u);
  for (const v1::Observation& call : *calls) EXPECT_FALSE(call.cached()) << call.tool_name();
  const v1::Observation& state = (*calls)[2];
  ASSERT_EQ(state.tool_name(), "flow_state");
  std::optional<Json> described = TryParseJson(state.result_json());
  ASSERT_TRUE(described.has_value()) << state.result_json();
  EXPECT_EQ((*described)["run_id"], run->run_id());
  EXPECT_EQ((*described)["task_id"], "think");
  EXPECT_EQ((*described)["turn"], 1);
  EXPECT_EQ((*described)["is_child"], false);
  ASSERT_TRUE((*described)["conversation"].is_array());
  EXPECT_THAT(DumpJson((*described)["conversation"]), HasSubstr("Remember a color."));
  EXPECT_THAT(DumpJson((*described)["conversation"]), HasSubstr("state_set"));
}

// The secret of a Streamable HTTP server's header (named by an environment
// variable in its server file) reaches the server and nothing else: not the
// worker's log, not a failed call's error, not the ledger.
TEST_F(FlowStateTest, McpHttpHeaderSecret_NeverInWorkerLogsOrErrors) {
  constexpr char kSecret[] = "Bearer flowstate-secret-7f3a9c";
  const std::string port_file = (dir_.path() / "mcp.port").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> server =
      ChildProcess::Spawn({"/usr/bin/env", "python3",
                           absl::StrCat(TASKBOARD_SOURCE_DIR, "/tests/mcp/fake_mcp_http_server.py"),
                           port_file, (dir_.path() / "mcp-received.jsonl").string()},
                          (dir_.path() / "mcp.out").string());
  ASSERT_THAT(server.status(), IsOk());
  absl::StatusOr<int> port = WaitForPortFile(**server, port_file, 30'000);
  ASSERT_THAT(port.status(), IsOk());
  const std::filesystem::path tools = dir_.path() / "tools";
  std::filesystem::create_directory(tools);
  std::ofstream(tools / "remote.yaml")
      << "mcp:\n  url: http://127.0.0.1:" << *port << "/mcp\n"
      << "  headers: {Authorization: FLOWSTATE_TEST_AUTH}\nprefix: r_\ntimeout_seconds: 2\n";
  setenv("FLOWSTATE_TEST_AUTH", kSecret, 1);
  testing::ClusterOptions options;
  options.workers = 1;
  options.agents_dir = agents_.string();
  options.worker_flags = {"--tools", tools.string()};
  cluster_ = std::make_unique<testing::Cluster>(options);
  ASSERT_THAT(cluster_->Start(), IsOk());
  unsetenv("FLOWSTATE_TEST_AUTH");

  absl::StatusOr<v1::Run> run = RunFlow(R"~(
name: header-secret
phases:
  - id: good
    agent: sh
    task: |
      taskboard tool r_echo '{"message":"fine"}'
  - id: bad
    agent: sh
    task: |
      taskboard tool r_wrong_ids 2>&1; taskboard tool r_huge '{"bytes":5000000}' 2>&1; echo end
)~");
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  const v1::Task* good = FindTask(*run, "good");
  ASSERT_NE(good, nullptr);
  EXPECT_THAT(good->output(), HasSubstr("fine"));
  const v1::Task* bad = FindTask(*run, "bad");
  ASSERT_NE(bad, nullptr);
  EXPECT_THAT(bad->output(), HasSubstr("MCP server 'remote'"));  // the calls did fail

  // The server got the header; nothing else holds it.
  EXPECT_THAT(ReadAll(dir_.path() / "mcp-received.jsonl"), HasSubstr(kSecret));
  const std::string secret_part = "flowstate-secret-7f3a9c";
  EXPECT_THAT(ReadAll(cluster_->dir() / "worker-0.log"), Not(HasSubstr(secret_part)));
  EXPECT_THAT(ReadAll(cluster_->dir() / "scheduler.log"), Not(HasSubstr(secret_part)));
  EXPECT_THAT(bad->output(), Not(HasSubstr(secret_part)));
  for (const char* task : {"good", "bad"}) {
    absl::StatusOr<std::vector<v1::Observation>> calls = cluster_->ToolCalls(run->run_id(), task);
    ASSERT_THAT(calls.status(), IsOk());
    for (const v1::Observation& call : *calls) {
      EXPECT_THAT(call.error(), Not(HasSubstr(secret_part)));
      EXPECT_THAT(call.result_json(), Not(HasSubstr(secret_part)));
    }
  }
}

}  // namespace
}  // namespace taskboard
