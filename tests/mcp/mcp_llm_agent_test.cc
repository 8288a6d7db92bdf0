// An llm agent calling a Streamable HTTP MCP server's tool across real
// processes: a scheduler, a worker whose tools directory names
// fake_mcp_http_server.py, and tools/fake-llm as the model, scripted to call
// the tool and answer with what it returned (docs/mcp.md). The model is
// offered the tool with the server's schema, the call reaches the server,
// and the ledger records it like any tool call.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/child_process.h"
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
  - name: call-the-mcp-tool
    match: {has_tool_results: false}
    respond:
      tool_calls:
        - name: r_echo
          arguments: {message: from the model}
  - name: answer
    match: {tool_result_contains: from the model}
    respond:
      content: "The MCP server said: from the model"
)";

constexpr char kFlow[] = R"(
name: llm-mcp
phases:
  - id: ask
    agent: researcher
    task: Ask the remote server to echo something.
)";

class McpLlmAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string port_file = (dir_.path() / "mcp.port").string();
    absl::StatusOr<std::unique_ptr<ChildProcess>> server = ChildProcess::Spawn(
        {"/usr/bin/env", "python3",
         absl::StrCat(TASKBOARD_SOURCE_DIR, "/tests/mcp/fake_mcp_http_server.py"), port_file,
         Received()},
        (dir_.path() / "mcp.out").string());
    ASSERT_THAT(server.status(), IsOk());
    server_ = *std::move(server);
    absl::StatusOr<int> port = WaitForPortFile(*server_, port_file, 30'000);
    ASSERT_THAT(port.status(), IsOk());
    const std::filesystem::path tools = dir_.path() / "tools";
    std::filesystem::create_directory(tools);
    std::ofstream(tools / "remote.yaml")
        << "mcp: {url: 'http://127.0.0.1:" << *port << "/mcp'}\nprefix: r_\n";

    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), kScript);
    ASSERT_THAT(llm.status(), IsOk());
    llm_ = *std::move(llm);
    const std::filesystem::path agents = dir_.path() / "agents";
    std::filesystem::create_directory(agents);
    std::ofstream(agents / "researcher.md") << testing::LlmAgentFileText(
        "researcher", llm_->base_url(), "tools: [r_echo]\n", "You ask the remote server.");

    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents.string();
    options.worker_flags = {"--tools", tools.string()};
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
  }

  std::string Received() const { return (dir_.path() / "mcp-received.jsonl").string(); }

  testing::TempDir dir_;
  std::unique_ptr<ChildProcess> server_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(McpLlmAgentTest, ModelCallsTheMcpTool_TheServerRunsIt_TheAnswerUsesItsResult) {
  absl::StatusOr<std::string> run_id = cluster_->Submit(kFlow);
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  EXPECT_EQ(run->output(), "The MCP server said: from the model");

  // The model was offered the tool as a function with the server's schema.
  const std::vector<Json> requests = llm_->Requests();
  ASSERT_EQ(requests.size(), 2u);
  bool offered = false;
  for (const Json& tool : requests[0]["tools"]) {
    if (tool["function"]["name"] != "r_echo") continue;
    offered = true;
    EXPECT_EQ(tool["function"]["description"], "Echoes its message.");
    EXPECT_EQ(tool["function"]["parameters"]["properties"]["message"]["type"], "string")
        << DumpJson(tool);
  }
  EXPECT_TRUE(offered) << DumpJson(requests[0]["tools"]);

  // The server ran the call once, with the model's arguments.
  int executed = 0;
  std::ifstream in(Received());
  for (std::string line; std::getline(in, line);) {
    std::optional<Json> entry = TryParseJson(line);
    if (!entry.has_value() || !entry->contains("message")) continue;
    const Json& message = (*entry)["message"];
    if (message.is_object() && message.value("method", "") == "tools/call") {
      ++executed;
      EXPECT_EQ(message["params"]["name"], "echo");
      EXPECT_EQ(message["params"]["arguments"], (Json{{"message", "from the model"}}));
    }
  }
  EXPECT_EQ(executed, 1);

  // The ledger holds the call like any other tool call.
  absl::StatusOr<std::vector<v1::Observation>> calls = cluster_->ToolCalls(*run_id, "ask");
  ASSERT_THAT(calls.status(), IsOk());
  ASSERT_EQ(calls->size(), 1u);
  EXPECT_EQ((*calls)[0].tool_name(), "r_echo");
  EXPECT_FALSE((*calls)[0].cached());
  EXPECT_THAT((*calls)[0].result_json(), HasSubstr("from the model"));
}

}  // namespace
}  // namespace taskboard
