// Tool calls through a whole worker session: a command agent's call on the
// tool socket becomes a ToolLookup on the stream, the scripted scheduler
// (tests/unit/worker/session/fake_gateway.h) decides, and the observation precedes
// the task's result, also across a reconnect.

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/unix_socket.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/session/session_harness.h"
#include "tests/unit/worker/tools/test_tools.h"
#include "worker/session/session.h"
#include "worker/tools/tool_registry.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::worker::testing::CountingTool;
using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::SessionHarness;
using ::testing::HasSubstr;

class SessionToolsTest : public SessionHarness {
 protected:
  void SetUp() override {
    // Writes where to call tools, then waits for the test to say "go".
    std::ofstream(dir_.path() / "tooler.yaml")
        << "command: [/bin/sh, -c, 'printf \"%s %s\\n\" \"$TASKBOARD_TOOL_SOCKET\" "
           "\"$TASKBOARD_TASK_TOKEN\" > tool-env.txt; while [ ! -e go ]; do sleep 0.02; done; "
           "echo finished']\n";
    ASSERT_NO_FATAL_FAILURE(
        LoadAgents({.workdir = dir_.path(), .kill_grace = absl::Milliseconds(200)}));
    auto tool = std::make_unique<CountingTool>("echo");
    tool_ = tool.get();
    ASSERT_THAT(tools_.Add(std::move(tool)), IsOk());

    SessionOptions options;
    options.tools = &tools_;
    options.workspaces = TaskWorkspaces::Shared(dir_.path());
    options.tool_socket.parent_dir = dir_.path();
    StartSession(options);
  }

  void TearDown() override {
    std::ofstream(dir_.path() / "go") << "";
    ASSERT_NO_FATAL_FAILURE(StopSession());
    EXPECT_THAT(status_, IsOk());
  }

  // The socket path and token the running agent was given.
  std::pair<std::string, std::string> AgentToolEnv() {
    const std::filesystem::path file = dir_.path() / "tool-env.txt";
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (absl::Now() < deadline) {
      std::ifstream in(file);
      std::string socket, token;
      if (in >> socket >> token) return {socket, token};
      absl::SleepFor(absl::Milliseconds(10));
    }
    ADD_FAILURE() << "the agent never wrote " << file;
    return {};
  }

  // One request on the socket, as `taskboard tool` sends it.
  static Json CallOverSocket(const std::pair<std::string, std::string>& env, const Json& args) {
    absl::StatusOr<UniqueFd> fd = ConnectUnixSocket(env.first);
    if (!fd.ok()) return {{"connect_error", fd.status().ToString()}};
    const Json request = {{"token", env.second}, {"tool", "echo"}, {"args", args}};
    if (!WriteAll(fd->get(), DumpJson(request) + "\n").ok()) return nullptr;
    LineReader reader(fd->get(), 1 << 20);
    absl::StatusOr<std::optional<std::string>> line = reader.Next(absl::Seconds(30));
    if (!line.ok() || !line->has_value()) return nullptr;
    return Json::parse(**line);
  }

  // Must outlive the session (StopSession destroys it first).
  ToolRegistry tools_;
  CountingTool* tool_;
};

TEST_F(SessionToolsTest, Hello_DeclaresTheRegistrysTools) {
  v1::Hello hello;
  Welcome(0, {}, &hello);
  ASSERT_EQ(hello.tools_size(), 1);
  EXPECT_EQ(hello.tools(0).name(), "echo");
  EXPECT_TRUE(hello.tools(0).cacheable());
}

TEST_F(SessionToolsTest, CommandAgentCall_LookupDecisionObservationThenResult) {
  FakeStream* stream = Welcome(0);
  stream->Send(Assign("tooler", "l1", /*prompt=*/""));
  Expect(stream, v1::ConnectRequest::kTaskStarted, /*skip_deltas=*/true);
  const std::pair<std::string, std::string> env = AgentToolEnv();
  EXPECT_EQ(env.first, session_->tool_socket_path());

  Json response;
  std::thread client([&] { response = CallOverSocket(env, {{"b", 2}, {"a", 1}}); });
  const v1::ToolLookup lookup =
      Expect(stream, v1::ConnectRequest::kToolLookup, /*skip_deltas=*/true).tool_lookup();
  EXPECT_EQ(lookup.task_id(), "task-l1");
  EXPECT_EQ(lookup.lease_id(), "l1");
  EXPECT_EQ(lookup.tool_name(), "echo");
  EXPECT_EQ(lookup.args_json(), R"({"a":1,"b":2})");
  v1::ConnectResponse decision;
  decision.mutable_tool_decision()->set_request_id(lookup.request_id());
  decision.mutable_tool_decision()->set_outcome(v1::ToolDecision::OUTCOME_HIT);
  decision.mutable_tool_decision()->set_result_json(R"({"from":"cache"})");
  decision.mutable_tool_decision()->set_cache_age_ms(10);
  decision.mutable_tool_decision()->mutable_source_task()->set_task_id("earlier");
  stream->Send(decision);
  client.join();
  EXPECT_EQ(response["ok"], true) << response.dump();
  EXPECT_EQ(response["result"], Json::parse(R"({"from":"cache"})"));
  EXPECT_EQ(response["cached"], true);
  EXPECT_EQ(tool_->executions(), 0);

  const v1::ToolObservation observation =
      Expect(stream, v1::ConnectRequest::kObservation, /*skip_deltas=*/true).observation();
  EXPECT_EQ(observation.task_id(), "task-l1");
  EXPECT_TRUE(observation.cached());
  EXPECT_EQ(observation.source_task().task_id(), "earlier");

  std::ofstream(dir_.path() / "go") << "";
  const v1::TaskResult result =
      Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true).task_result();
  EXPECT_TRUE(result.success()) << result.error();
  // The task is over: its token no longer works.
  const Json late = CallOverSocket(env, Json::object());
  EXPECT_EQ(late["ok"], false);
  EXPECT_THAT(late["error"].get<std::string>(), HasSubstr("task token is not valid"));
}

// What `taskboard tool echo` does from a command agent whose phase allows
// only read_file: refused on the worker, so the scheduler hears nothing.
TEST_F(SessionToolsTest, CommandAgentCallOutsideThePhaseTools_RefusedNeitherLookedUpNorObserved) {
  FakeStream* stream = Welcome(0);
  v1::ConnectResponse assignment = Assign("tooler", "l1", /*prompt=*/"");
  assignment.mutable_assignment()->add_tools("read_file");
  stream->Send(assignment);
  Expect(stream, v1::ConnectRequest::kTaskStarted, /*skip_deltas=*/true);
  const Json response = CallOverSocket(AgentToolEnv(), Json::object());
  EXPECT_EQ(response["ok"], false) << response.dump();
  EXPECT_THAT(response["error"].get<std::string>(),
              HasSubstr("tool 'echo' is not allowed for this task (its allowed tools: read_file;"));
  EXPECT_EQ(tool_->executions(), 0);

  std::ofstream(dir_.path() / "go") << "";
  // The next message is the result: no lookup, no observation.
  EXPECT_TRUE(Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true)
                  .task_result()
                  .success());
}

// Defence in depth: a scheduler that let `cwd: "/"` through still cannot
// start an agent at the filesystem root.
TEST_F(SessionToolsTest, CwdOutsideTheWorkspaceRoot_TaskFailsBeforeTheAgentRuns) {
  FakeStream* stream = Welcome(0);
  for (const char* cwd : {"/", "../../.."}) {
    v1::ConnectResponse assignment = Assign("tooler", absl::StrCat("l-", cwd), /*prompt=*/"");
    assignment.mutable_assignment()->set_cwd(cwd);
    stream->Send(assignment);
    const v1::TaskResult result =
        Expect(stream, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true).task_result();
    EXPECT_FALSE(result.success());
    EXPECT_THAT(result.error(), HasSubstr(absl::StrCat("cwd '", cwd, "'")));
    EXPECT_THAT(result.error(), HasSubstr("workspace root"));
    Expect(stream, v1::ConnectRequest::kCredits);  // the slot is free again
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "tool-env.txt"));
}

// The stream drops (a scheduler restart) before the decision: the call
// waits for the next stream and asks the cache there, rather than run a call
// the cache may hold.
TEST_F(SessionToolsTest, StreamDropsBeforeTheDecision_AsksAgainOnTheNextStream) {
  FakeStream* first = Welcome(0);
  first->Send(Assign("tooler", "l1", /*prompt=*/""));
  Expect(first, v1::ConnectRequest::kTaskStarted, /*skip_deltas=*/true);
  const std::pair<std::string, std::string> env = AgentToolEnv();
  Json response;
  std::thread client([&] { response = CallOverSocket(env, {{"n", 1}}); });
  Expect(first, v1::ConnectRequest::kToolLookup, /*skip_deltas=*/true);
  first->End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "scheduler restarting"));

  FakeStream* second = Welcome(1);
  const v1::ToolLookup again =
      Expect(second, v1::ConnectRequest::kToolLookup, /*skip_deltas=*/true).tool_lookup();
  EXPECT_EQ(again.lease_id(), "l1");
  v1::ConnectResponse hit;
  hit.mutable_tool_decision()->set_request_id(again.request_id());
  hit.mutable_tool_decision()->set_outcome(v1::ToolDecision::OUTCOME_HIT);
  hit.mutable_tool_decision()->set_result_json(R"({"from":"cache"})");
  second->Send(hit);
  client.join();
  EXPECT_EQ(response["ok"], true) << response.dump();
  EXPECT_EQ(response["cached"], true);
  EXPECT_EQ(tool_->executions(), 0);

  const v1::ToolObservation observation =
      Expect(second, v1::ConnectRequest::kObservation, /*skip_deltas=*/true).observation();
  EXPECT_EQ(observation.lease_id(), "l1");
  EXPECT_TRUE(observation.cached());
  std::ofstream(dir_.path() / "go") << "";
  EXPECT_TRUE(Expect(second, v1::ConnectRequest::kTaskResult, /*skip_deltas=*/true)
                  .task_result()
                  .success());
}

}  // namespace
}  // namespace taskboard::worker
