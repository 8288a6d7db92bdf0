// The worker's client of Streamable HTTP MCP servers against
// fake_mcp_http_server.py, which answers in JSON and in event streams, sends
// garbage, wrong ids and oversized answers, hangs, forgets sessions and
// announces new tools on its GET stream, each on request
// (docs/mcp.md#streamable-http-servers). Each test loads a tools directory
// holding one server file through LoadToolRegistry, the worker's own start-up
// path, and calls tools as the ToolCaller does.

#include <stdlib.h>

#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "worker/base/cancel_token.h"
#include "worker/tools/tool_registry.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "Bearer fake-secret-value";

class McpHttpFakeServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string port_file = (dir_.path() / "server.port").string();
    absl::StatusOr<std::unique_ptr<ChildProcess>> server = ChildProcess::Spawn(
        {"/usr/bin/env", "python3",
         absl::StrCat(TASKBOARD_SOURCE_DIR, "/tests/mcp/fake_mcp_http_server.py"), port_file,
         Log()},
        (dir_.path() / "server.out").string());
    ASSERT_THAT(server.status(), IsOk());
    server_ = *std::move(server);
    absl::StatusOr<int> port = WaitForPortFile(*server_, port_file, 30'000);
    ASSERT_THAT(port.status(), IsOk());
    port_ = *port;
    setenv("MCP_HTTP_TEST_AUTH", kSecret, 1);
    setenv("MCP_HTTP_TEST_TEAM", "blue", 1);
  }

  // Loads a registry whose only MCP server is the fake, with `extra` lines
  // appended to its server file. The short call timeout is what the timeout
  // tests measure.
  std::unique_ptr<ToolRegistry> Load(const std::string& extra = "", int timeout_seconds = 2) {
    std::ofstream(tools_.path() / "remote.yaml")
        << "mcp:\n  url: http://127.0.0.1:" << port_ << "/mcp\n"
        << "  headers: {Authorization: MCP_HTTP_TEST_AUTH, X-Team: MCP_HTTP_TEST_TEAM}\n"
        << "prefix: r_\ntimeout_seconds: " << timeout_seconds << "\n"
        << extra;
    absl::StatusOr<std::unique_ptr<ToolRegistry>> registry = LoadToolRegistry(tools_.path());
    EXPECT_THAT(registry.status(), IsOk());
    return registry.ok() ? *std::move(registry) : std::make_unique<ToolRegistry>();
  }

  absl::StatusOr<std::string> Call(const ToolRegistry& registry, const std::string& name,
                                   const std::string& args = "{}") {
    absl::StatusOr<std::shared_ptr<const Tool>> tool = registry.Find(name);
    if (!tool.ok()) return tool.status();
    return (*tool)->Execute(args, ToolContext{tools_.path(), &cancel_});
  }

  std::string Log() const { return (dir_.path() / "received.jsonl").string(); }

  // What the fake server received: {"http", "headers", "message"} each.
  std::vector<Json> Received() const {
    std::vector<Json> entries;
    std::ifstream in(Log());
    for (std::string line; std::getline(in, line);) {
      if (std::optional<Json> entry = TryParseJson(line)) entries.push_back(*entry);
    }
    return entries;
  }

  // The messages of the POSTs received with method `method`.
  std::vector<Json> Posted(const std::string& method) const {
    std::vector<Json> found;
    for (const Json& entry : Received()) {
      if (entry.contains("message") && entry["message"].is_object() &&
          entry["message"].value("method", "") == method) {
        found.push_back(entry);
      }
    }
    return found;
  }

  taskboard::testing::TempDir dir_;
  taskboard::testing::TempDir tools_;
  std::unique_ptr<ChildProcess> server_;
  int port_ = 0;
  CancelToken cancel_;
};

TEST_F(McpHttpFakeServerTest, Listing_OffersToolsWithSchemas_SessionAndHeadersGoWithEveryMessage) {
  std::unique_ptr<ToolRegistry> registry = Load();
  EXPECT_THAT(registry->Names(), Contains("r_echo"));
  EXPECT_THAT(registry->Names(), Contains("r_huge"));
  for (const v1::ToolDeclaration& decl : registry->Declarations()) {
    if (decl.name() != "r_echo") continue;
    EXPECT_EQ(decl.description(), "Echoes its message.");
    EXPECT_THAT(decl.parameters_schema_json(), HasSubstr(R"("message":{"type":"string"})"));
  }
  const std::vector<Json> initialize = Posted("initialize");
  ASSERT_EQ(initialize.size(), 1u);
  EXPECT_FALSE(initialize[0]["headers"].contains("mcp-session-id"));
  EXPECT_EQ(initialize[0]["headers"]["accept"], "application/json, text/event-stream");
  EXPECT_EQ(initialize[0]["headers"]["authorization"], kSecret);
  EXPECT_EQ(initialize[0]["headers"]["x-team"], "blue");
  const std::vector<Json> listed = Posted("tools/list");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_TRUE(listed[0]["headers"].contains("mcp-session-id"));
  EXPECT_EQ(listed[0]["headers"]["mcp-protocol-version"], "2025-06-18");
  EXPECT_EQ(listed[0]["headers"]["authorization"], kSecret);
  ASSERT_EQ(Posted("notifications/initialized").size(), 1u);
}

TEST_F(McpHttpFakeServerTest, Call_JsonAnswer_KeepsTheContentBlocks) {
  std::unique_ptr<ToolRegistry> registry = Load();
  absl::StatusOr<std::string> result = Call(*registry, "r_echo", R"({"message":"hi"})");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_EQ(*result, R"({"content":[{"type":"text","text":"hi"}]})");
}

TEST_F(McpHttpFakeServerTest, Call_StreamedAnswer_AfterANotificationAndAPingThatIsAnswered) {
  std::unique_ptr<ToolRegistry> registry = Load();
  absl::StatusOr<std::string> result = Call(*registry, "r_sse_echo");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_THAT(*result, HasSubstr("streamed"));
  bool ping_answered = false;
  for (const Json& entry : Received()) {
    if (entry.contains("message") && entry["message"].value("id", Json()) == "srv-ping") {
      ping_answered = entry["message"]["result"] == Json::object();
    }
  }
  EXPECT_TRUE(ping_answered);
}

TEST_F(McpHttpFakeServerTest, GarbageEventsAndWrongIds_OnlyTheRightAnswerCounts) {
  std::unique_ptr<ToolRegistry> registry = Load();
  absl::StatusOr<std::string> result = Call(*registry, "r_garbage");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_THAT(*result, HasSubstr("through the garbage"));
}

TEST_F(McpHttpFakeServerTest, OnlyWrongIds_ThatCallFailsNamingTheServer_OthersStillWork) {
  std::unique_ptr<ToolRegistry> registry = Load();
  EXPECT_THAT(
      Call(*registry, "r_wrong_ids"),
      StatusIs(absl::StatusCode::kUnknown, AllOf(HasSubstr("MCP server 'remote', tool 'wrong_ids'"),
                                                 HasSubstr("without a response to the request"))));
  EXPECT_THAT(Call(*registry, "r_echo", R"({"message":"still here"})"), IsOk());
}

TEST_F(McpHttpFakeServerTest, AnswerOverTheLimit_JsonOrStreamed_FailsThatCallOnly) {
  std::unique_ptr<ToolRegistry> registry = Load();
  for (const char* sse : {"false", "true"}) {
    EXPECT_THAT(
        Call(*registry, "r_huge", absl::StrCat(R"({"bytes":)", 5 << 20, R"(,"sse":)", sse, "}")),
        StatusIs(absl::StatusCode::kResourceExhausted,
                 HasSubstr("MCP server 'remote', tool 'huge': the answer is longer than")))
        << "sse: " << sse;
    EXPECT_THAT(Call(*registry, "r_huge", absl::StrCat(R"({"bytes":1000,"sse":)", sse, "}")),
                IsOk());
  }
}

TEST_F(McpHttpFakeServerTest, HungServer_CallTimesOut_ServerIsToldToCancel) {
  std::unique_ptr<ToolRegistry> registry = Load();
  const absl::Time start = absl::Now();
  EXPECT_THAT(Call(*registry, "r_hang"),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("MCP server 'remote', tool 'hang': no answer within 2s")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(8));
  EXPECT_THAT(Call(*registry, "r_echo", R"({"message":"still here"})"), IsOk());
  int64_t hang_id = -1;
  bool cancelled = false;
  for (const Json& entry : Received()) {
    const Json& message = entry.value("message", Json());
    if (!message.is_object()) continue;
    if (message.value("method", "") == "tools/call" && message["params"]["name"] == "hang") {
      hang_id = message["id"].get<int64_t>();
    }
    if (message.value("method", "") == "notifications/cancelled") {
      cancelled = message["params"]["requestId"] == hang_id;
    }
  }
  EXPECT_TRUE(cancelled) << "no notifications/cancelled for request " << hang_id;
}

TEST_F(McpHttpFakeServerTest, TaskCancelled_CallEndsAtOnce) {
  std::unique_ptr<ToolRegistry> registry = Load("", /*timeout_seconds=*/30);
  std::thread canceller([this] {
    absl::SleepFor(absl::Milliseconds(300));
    cancel_.Cancel("the run was cancelled");
  });
  const absl::Time start = absl::Now();
  EXPECT_THAT(Call(*registry, "r_hang"),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("the run was cancelled")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  canceller.join();
}

TEST_F(McpHttpFakeServerTest, SessionForgotten_NextCallStartsANewSessionAndSucceeds) {
  std::unique_ptr<ToolRegistry> registry = Load("", /*timeout_seconds=*/30);
  ASSERT_THAT(Call(*registry, "r_forget"), IsOk());
  absl::StatusOr<std::string> result = Call(*registry, "r_echo", R"({"message":"again"})");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_THAT(*result, HasSubstr("again"));
  EXPECT_EQ(Posted("initialize").size(), 2u);
}

TEST_F(McpHttpFakeServerTest, ListChangedOnTheGetStream_NewToolsAreOffered) {
  std::unique_ptr<ToolRegistry> registry = Load();
  EXPECT_THAT(registry->Names(), Not(Contains("r_extra")));
  // The GET stream opens after notifications/initialized, on its own thread.
  for (const absl::Time deadline = absl::Now() + absl::Seconds(10); absl::Now() < deadline;
       absl::SleepFor(absl::Milliseconds(20))) {
    bool open = false;
    for (const Json& entry : Received()) open = open || entry["http"] == "GET";
    if (open) break;
  }
  ASSERT_THAT(Call(*registry, "r_add_tool"), IsOk());
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!registry->Find("r_extra").ok() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  absl::StatusOr<std::string> result = Call(*registry, "r_extra");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_THAT(*result, HasSubstr("extra"));
}

TEST_F(McpHttpFakeServerTest, Shutdown_EndsTheSessionWithADelete) {
  std::unique_ptr<ToolRegistry> registry = Load();
  registry.reset();
  bool deleted = false;
  for (const Json& entry : Received()) {
    deleted = deleted || (entry["http"] == "DELETE" && entry["headers"].contains("mcp-session-id"));
  }
  EXPECT_TRUE(deleted);
}

TEST_F(McpHttpFakeServerTest, HeaderVariableMissing_WorkerStartsWithoutTheTools_NothingIsSent) {
  unsetenv("MCP_HTTP_TEST_TEAM");
  std::unique_ptr<ToolRegistry> registry = Load();
  EXPECT_THAT(registry->Names(), Not(Contains("r_echo")));
  EXPECT_THAT(registry->Names(), Contains("read_file"));
  absl::StatusOr<std::shared_ptr<const Tool>> tool = registry->Find("r_echo");
  EXPECT_THAT(tool.status(), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_TRUE(Posted("initialize").empty()) << "nothing is sent without every header";
}

TEST_F(McpHttpFakeServerTest, ServerGone_CallFailsNamingTheServer_WorkerKeepsServing) {
  std::unique_ptr<ToolRegistry> registry = Load();
  server_->KillGroup();
  EXPECT_THAT(Call(*registry, "r_echo", R"({"message":"x"})"),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr("MCP server 'remote', tool 'echo'"),
                             HasSubstr("the next call starts a new session"))));
  EXPECT_THAT(registry->Names(), Contains("read_file"));
}

}  // namespace
}  // namespace taskboard::worker
