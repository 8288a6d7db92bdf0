// An agent inside a flow starts another flow through `taskboard mcp`'s
// run_flow (docs/mcp.md#taskboard-as-an-mcp-server), across real processes:
// a scheduler with --max-run-depth=2, a worker, and a command agent that
// speaks JSON-RPC over stdio to `taskboard mcp` and runs its own saved flow
// again, waiting for it. The recursion stops at the limit: three runs, each
// a child of the one before under one root, and the deepest agent's tool
// call is an isError result naming the flag while its task completes
// (docs/semantics.md#nested-runs). Over the scheduler's POST /mcp, a call
// whose `_meta` carries a running task's FlowState starts that task's child.

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

// Runs `taskboard mcp` (which reads TASKBOARD_RUN_ID and TASKBOARD_TASK_ID
// from the environment the worker gives it), calls run_flow on the saved
// flow `recurse` with a wait, and prints the tool result as one JSON line.
constexpr char kRecurseAgent[] = R"~(#!/usr/bin/env python3
import json, subprocess, sys
address = open(ADDRESS_FILE).read().strip()
mcp = subprocess.Popen([TASKBOARD, "mcp", "--scheduler", address],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(message):
    mcp.stdin.write(json.dumps(message) + "\n")
    mcp.stdin.flush()
def answer(request_id):
    for line in mcp.stdout:
        message = json.loads(line)
        if message.get("id") == request_id:
            return message
    sys.exit("taskboard mcp closed its output")
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "recurse", "version": "1"}}})
answer(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
      "params": {"name": "run_flow", "arguments": {"name": "recurse", "wait_seconds": 50}}})
result = answer(2)["result"]
mcp.stdin.close()
mcp.wait()
print(json.dumps({"isError": result["isError"], "text": result["content"][0]["text"]}))
)~";

class RunDepthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    agents_ = dir_.path() / "agents";
    std::filesystem::create_directory(agents_);
    address_file_ = dir_.path() / "scheduler-address";
    std::string script = kRecurseAgent;
    script.replace(script.find("ADDRESS_FILE"), 12, DumpJson(address_file_.string()));
    script.replace(script.find("TASKBOARD,"), 9, DumpJson(testing::BinaryPath("taskboard")));
    const std::filesystem::path agent = agents_ / "recurse.py";
    std::ofstream(agent) << script;
    std::filesystem::permissions(agent, std::filesystem::perms::owner_all);
    std::ofstream(agents_ / "recurse.yaml")
        << "name: recurse\ntype: command\ncommand: [" << DumpJson(agent.string()) << "]\n";
  }

  testing::TempDir dir_;
  std::filesystem::path agents_;
  std::filesystem::path address_file_;
};

TEST_F(RunDepthTest, FlowStartingItself_StopsAtMaxRunDepth_WithLinkedRunsAndAToolError) {
  testing::ClusterOptions options;
  options.workers = 1;
  options.slots = 4;  // each level's task waits for the next one
  options.agents_dir = agents_.string();
  options.scheduler_flags = {"--max-run-depth=2"};
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  std::ofstream(address_file_) << cluster.address();

  {
    v1::SaveFlowRequest request;
    request.mutable_source()->set_text(
        "name: recurse\nphases:\n  - id: main\n    agent: recurse\n    task: go one deeper\n");
    v1::SaveFlowResponse response;
    grpc::ClientContext context;
    grpc::Status saved = cluster.client().SaveFlow(&context, request, &response);
    ASSERT_TRUE(saved.ok()) << saved.error_message();
  }
  v1::SubmitRunRequest submit;
  submit.mutable_saved()->set_name("recurse");
  v1::SubmitRunResponse submitted;
  {
    grpc::ClientContext context;
    grpc::Status status = cluster.client().SubmitRun(&context, submit, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  const std::string root = submitted.run_id();
  absl::StatusOr<v1::Run> finished = cluster.WaitForRun(root, 90'000);
  ASSERT_THAT(finished.status(), IsOk());
  ASSERT_EQ(finished->status(), v1::RUN_STATUS_COMPLETED) << finished->error() << cluster.Logs();

  // Every run of the tenant, by depth.
  v1::ListRunsResponse listed;
  {
    grpc::ClientContext context;
    grpc::Status status = cluster.client().ListRuns(&context, v1::ListRunsRequest(), &listed);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_EQ(listed.runs_size(), 3) << "the recursion did not stop at depth 2" << cluster.Logs();
  std::map<int, v1::Run> by_depth;
  for (const v1::Run& run : listed.runs()) by_depth[run.depth()] = run;
  ASSERT_EQ(by_depth.size(), 3u);
  EXPECT_EQ(by_depth[0].run_id(), root);
  EXPECT_EQ(by_depth[0].parent_run_id(), "");
  for (int depth = 1; depth <= 2; ++depth) {
    const v1::Run& run = by_depth[depth];
    EXPECT_EQ(run.parent_run_id(), by_depth[depth - 1].run_id()) << "depth " << depth;
    EXPECT_EQ(run.root_run_id(), root) << "depth " << depth;
    EXPECT_EQ(run.parent_task_id(), "main") << "depth " << depth;
    EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << "depth " << depth;
    EXPECT_THAT(by_depth[depth - 1].child_run_ids(), ::testing::ElementsAre(run.run_id()));
  }

  // Each agent's tool result is its task's output: the two upper ones saw
  // their child complete, the deepest was refused naming the flag.
  for (int depth = 0; depth <= 2; ++depth) {
    absl::StatusOr<v1::Run> run = cluster.GetRun(by_depth[depth].run_id());
    ASSERT_THAT(run.status(), IsOk());
    absl::StatusOr<Json> result = ParseJson(run->output());
    ASSERT_TRUE(result.ok()) << "depth " << depth << ": " << run->output();
    if (depth < 2) {
      EXPECT_EQ((*result)["isError"], false) << (*result)["text"];
      EXPECT_THAT((*result)["text"].get<std::string>(), HasSubstr("\"completed\""));
    } else {
      EXPECT_EQ((*result)["isError"], true) << (*result)["text"];
      EXPECT_THAT((*result)["text"].get<std::string>(),
                  HasSubstr("run_flow failed: FAILED_PRECONDITION"));
      EXPECT_THAT((*result)["text"].get<std::string>(), HasSubstr("--max-run-depth=2"));
    }
  }
}

// POST /mcp with one JSON-RPC message; the answer's body as JSON.
absl::StatusOr<Json> PostMcp(int port, const Json& message) {
  const std::string body = DumpJson(message);
  testing::RawConnection connection(port);
  connection.Send(absl::StrCat("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:", port,
                               "\r\nContent-Type: application/json\r\n"
                               "Accept: application/json, text/event-stream\r\n"
                               "Connection: close\r\nContent-Length: ",
                               body.size(), "\r\n\r\n", body));
  // Read until the server closes the connection (the marker never comes).
  const std::string& reply = connection.ReadUntil("\x01never", absl::Seconds(30));
  // The JSON body, whether sent with a length or as one chunk.
  const size_t head_end = reply.find("\r\n\r\n");
  const size_t open = reply.find('{', head_end == std::string::npos ? 0 : head_end);
  const size_t close = reply.rfind('}');
  if (head_end == std::string::npos || open == std::string::npos || close < open) {
    return absl::UnavailableError("no JSON answer: " + reply);
  }
  return ParseJson(reply.substr(open, close - open + 1));
}

TEST_F(RunDepthTest, HttpMcp_MetaNamingARunningTask_StartsItsChildRun) {
  // Holds its task until the test lets it go.
  const std::filesystem::path release = dir_.path() / "release";
  std::ofstream(agents_ / "hold.sh")
      << "#!/bin/sh\nwhile [ ! -f " << release.string() << " ]; do sleep 0.05; done\necho held\n";
  std::filesystem::permissions(agents_ / "hold.sh", std::filesystem::perms::owner_all);
  std::ofstream(agents_ / "hold.yaml") << "name: hold\ntype: command\ncommand: ["
                                       << DumpJson((agents_ / "hold.sh").string()) << "]\n";
  const std::filesystem::path port_file = dir_.path() / "http.port";
  testing::ClusterOptions options;
  options.workers = 1;
  options.agents_dir = agents_.string();
  options.scheduler_flags = {"--http-listen", "127.0.0.1:0", "--http-port-file",
                             port_file.string()};
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  int port = 0;
  std::ifstream(port_file) >> port;
  ASSERT_GT(port, 0) << cluster.Logs();

  absl::StatusOr<std::string> root =
      cluster.Submit("name: holder\nphases:\n  - id: main\n    agent: hold\n    task: hold\n");
  ASSERT_THAT(root.status(), IsOk());
  absl::StatusOr<v1::Run> running = cluster.WaitUntil(*root, [](const v1::Run& run) {
    return run.tasks_size() == 1 && run.tasks(0).state() == v1::TASK_STATE_RUNNING;
  });
  ASSERT_THAT(running.status(), IsOk());
  {
    v1::SaveFlowRequest request;
    request.mutable_source()->set_text(
        "name: leaf\nphases:\n  - id: main\n    agent: hold\n    task: leaf\n");
    v1::SaveFlowResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(cluster.client().SaveFlow(&context, request, &response).ok());
  }

  const Json call = {
      {"jsonrpc", "2.0"},
      {"id", 1},
      {"method", "tools/call"},
      {"params",
       {{"name", "run_flow"},
        {"arguments", {{"name", "leaf"}}},
        {"_meta", {{"taskboard/flow_state", {{"run_id", *root}, {"task_id", "main"}}}}}}}};
  absl::StatusOr<Json> answer = PostMcp(port, call);
  ASSERT_THAT(answer.status(), IsOk());
  const Json& result = (*answer)["result"];
  ASSERT_EQ(result["isError"], false) << answer->dump();
  const std::string child_id = result["structuredContent"]["run_id"].get<std::string>();
  absl::StatusOr<v1::Run> child = cluster.GetRun(child_id, true);
  ASSERT_THAT(child.status(), IsOk());
  EXPECT_EQ(child->parent_run_id(), *root);
  EXPECT_EQ(child->root_run_id(), *root);
  EXPECT_EQ(child->parent_task_id(), "main");
  EXPECT_EQ(child->depth(), 1);

  // Naming a task that does not exist is a tool error; the server goes on.
  Json wrong = call;
  wrong["params"]["_meta"]["taskboard/flow_state"]["task_id"] = "nope";
  absl::StatusOr<Json> refused = PostMcp(port, wrong);
  ASSERT_THAT(refused.status(), IsOk());
  EXPECT_EQ((*refused)["result"]["isError"], true) << refused->dump();
  EXPECT_THAT((*refused)["result"]["content"][0]["text"].get<std::string>(),
              HasSubstr("has no task 'nope'"));

  std::ofstream(release) << "go";
  absl::StatusOr<v1::Run> finished = cluster.WaitForRun(*root);
  ASSERT_THAT(finished.status(), IsOk());
  EXPECT_EQ(finished->status(), v1::RUN_STATUS_COMPLETED) << finished->error();
}

}  // namespace
}  // namespace taskboard
