// The llm agent across real processes: a scheduler, a worker with a command
// agent and an llm agent, and tools/fake-llm as the model over real HTTP.
// The llm task is told what the command task found (prior work in its
// prompt), calls a tool the command task already called (served from the
// shared cache), and answers.

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

using ::testing::HasSubstr;
using testing::IsOk;

constexpr char kScript[] = R"(rules:
  - name: read-first
    match: {has_tool_results: false}
    respond:
      tool_calls:
        - name: read_file
          arguments: {path: notes.md}
  - name: answer
    match: {tool_result_contains: remember}
    respond:
      content: "The notes say: remember the milk"
)";

constexpr char kFlow[] = R"(
name: llm-reads
phases:
  - id: scout
    agent: echo
    task: 'tool read_file {"path": "notes.md"}'
  - id: answer
    agent: researcher
    task: What do the notes say?
    dependsOn: [scout]
    thinking: xhigh
)";

class LlmAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), kScript);
    ASSERT_THAT(llm.status(), IsOk());
    llm_ = *std::move(llm);

    // The test agents plus an llm agent pointed at the fake.
    const std::filesystem::path agents = dir_.path() / "agents";
    std::filesystem::create_directory(agents);
    for (const char* file : {"echo.yaml", "script.sh"}) {
      std::filesystem::copy_file(testing::SourcePath("tests/integration/agents/") + file,
                                 agents / file);
    }
    std::filesystem::permissions(agents / "script.sh", std::filesystem::perms::owner_all);
    std::ofstream(agents / "researcher.md") << testing::LlmAgentFileText(
        "researcher", llm_->base_url(), "tools: [read_file]\nthinking: low\n",
        "You read files before you answer.");

    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents.string();
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
    std::ofstream(cluster_->dir() / "notes.md") << "remember the milk\n";
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(LlmAgentTest, ToolCallServedFromCacheAndPriorWorkInThePrompt) {
  absl::StatusOr<std::string> run_id = cluster_->Submit(kFlow);
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  EXPECT_EQ(run->output(), "The notes say: remember the milk");

  // The model saw what `scout` found before it asked for anything.
  std::vector<Json> requests = llm_->Requests();
  ASSERT_EQ(requests.size(), 2u);
  const Json& messages = requests[0]["messages"];
  ASSERT_GE(messages.size(), 2u);
  const std::string user = messages[1]["content"].get<std::string>();
  EXPECT_THAT(user, HasSubstr("What do the notes say?"));
  EXPECT_THAT(user, HasSubstr("## Prior work"));
  EXPECT_THAT(user, HasSubstr(R"(- [scout] read_file({"path":"notes.md"}))"));
  EXPECT_EQ(requests[0]["tools"][0]["function"]["name"], "read_file");
  // The phase's `thinking: xhigh` beat the agent file's `low` and reached the
  // model as OpenAI's highest reasoning_effort (docs/agents-llm.md#thinking).
  EXPECT_EQ(requests[0]["reasoning_effort"], "high");

  // Its own read_file call was served from the cache filled by `scout`.
  absl::StatusOr<std::vector<v1::Observation>> calls = cluster_->ToolCalls(*run_id, "answer");
  ASSERT_THAT(calls.status(), IsOk());
  ASSERT_EQ(calls->size(), 1u);
  EXPECT_TRUE((*calls)[0].cached());
  EXPECT_EQ((*calls)[0].source_task().task_id(), "scout");

  // The conversation is the task's execution record.
  v1::GetTaskRequest request;
  request.set_run_id(*run_id);
  request.set_task_id("answer");
  v1::GetTaskResponse task;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_->client().GetTask(&context, request, &task).ok());
  EXPECT_EQ(task.execution().turns(), 2);
  EXPECT_GE(task.execution().messages_size(), 4);
}

}  // namespace
}  // namespace taskboard
