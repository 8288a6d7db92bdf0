// The worker's MCP client against fake_mcp_server.py, a server that hangs,
// crashes, floods, answers wrong ids, lists thousands of tools and answers
// too much, each on request (docs/mcp.md#limits-and-errors). Each test
// loads a tools directory holding one server file through LoadToolRegistry,
// the worker's own start-up path, and calls tools as the ToolCaller does.

#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
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
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

class McpFakeServerTest : public ::testing::Test {
 protected:
  // Loads a registry whose only MCP server is the fake, with `extra` lines
  // appended to its server file. The short call timeout is what the timeout
  // tests measure; a test that restarts the server passes a long one, since a
  // restart's start-up counts against the call that triggers it and a loaded
  // CI machine can take seconds to start python.
  std::unique_ptr<ToolRegistry> Load(const std::string& args = "", const std::string& extra = "",
                                     int timeout_seconds = 2) {
    std::ofstream(dir_.path() / "fake.yaml")
        << "mcp:\n  command: python3\n  args: [\"" << TASKBOARD_SOURCE_DIR
        << "/tests/mcp/fake_mcp_server.py\", \"" << Log() << "\"" << args << "]\n"
        << "prefix: fake_\ntimeout_seconds: " << timeout_seconds << "\n"
        << extra;
    absl::StatusOr<std::unique_ptr<ToolRegistry>> registry = LoadToolRegistry(dir_.path());
    EXPECT_THAT(registry.status(), IsOk());
    return registry.ok() ? *std::move(registry) : std::make_unique<ToolRegistry>();
  }

  absl::StatusOr<std::string> Call(const ToolRegistry& registry, const std::string& name,
                                   const std::string& args = "{}") {
    absl::StatusOr<std::shared_ptr<const Tool>> tool = registry.Find(name);
    if (!tool.ok()) return tool.status();
    return (*tool)->Execute(args, ToolContext{dir_.path(), &cancel_});
  }

  std::string Log() const { return (dir_.path() / "received.jsonl").string(); }

  // What the fake server received, one JSON message per element.
  std::vector<Json> Received() const {
    std::vector<Json> messages;
    std::ifstream in(Log());
    for (std::string line; std::getline(in, line);) {
      if (std::optional<Json> message = TryParseJson(line)) messages.push_back(*message);
    }
    return messages;
  }

  testing::TempDir dir_;
  CancelToken cancel_;
};

TEST_F(McpFakeServerTest, Listing_OffersToolsUnderThePrefixWithSchemas_NotCacheableByDefault) {
  std::unique_ptr<ToolRegistry> registry = Load();
  const std::vector<std::string> names = registry->Names();
  EXPECT_THAT(names, Contains("fake_echo"));
  EXPECT_THAT(names, Contains("fake_hang"));
  EXPECT_THAT(names, Contains("read_file")) << "the built-ins stay";
  EXPECT_THAT(names, Not(Contains("fake_bad name!"))) << "not a valid tool name";
  for (const v1::ToolDeclaration& decl : registry->Declarations()) {
    if (decl.name() != "fake_echo") continue;
    EXPECT_EQ(decl.description(), "Echoes its message.");
    EXPECT_THAT(decl.parameters_schema_json(), HasSubstr(R"("message":{"type":"string"})"));
    EXPECT_FALSE(decl.cacheable()) << "readOnlyHint is a hint, not a promise";
  }
  // The handshake, and answers to what the server asked in between (which
  // the worker's reader sends while the handshake goes on, so they may
  // reach the server's log a moment after the listing).
  std::vector<std::string> methods;
  Json ping_answer, roots_answer;
  for (const absl::Time deadline = absl::Now() + absl::Seconds(5);
       (ping_answer.is_null() || roots_answer.is_null()) && absl::Now() < deadline;
       absl::SleepFor(absl::Milliseconds(10))) {
    methods.clear();
    for (const Json& message : Received()) {
      if (message.contains("method")) methods.push_back(message["method"].get<std::string>());
      if (message.value("id", Json()) == "srv-1") ping_answer = message;
      if (message.value("id", Json()) == "srv-2") roots_answer = message;
    }
  }
  ASSERT_GE(methods.size(), 3u);
  EXPECT_EQ(methods[0], "initialize");
  EXPECT_EQ(methods[1], "notifications/initialized");
  EXPECT_EQ(methods[2], "tools/list");
  EXPECT_EQ(Received()[0]["params"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(ping_answer["result"], Json::object()) << DumpJson(ping_answer);
  EXPECT_EQ(roots_answer["error"]["code"], -32601) << DumpJson(roots_answer);
}

TEST_F(McpFakeServerTest, CacheSettings_ComeFromTheServerFile) {
  std::unique_ptr<ToolRegistry> registry = Load(
      "",
      "tools:\n  echo: {cacheable: true, ttl_ms: 5000, scope: session, key_fields: [message]}\n");
  bool found = false;
  for (const v1::ToolDeclaration& decl : registry->Declarations()) {
    if (decl.name() != "fake_echo") continue;
    found = true;
    EXPECT_TRUE(decl.cacheable());
    EXPECT_EQ(decl.default_ttl_ms(), 5000);
    EXPECT_EQ(decl.default_scope(), v1::CACHE_SCOPE_SESSION);
    ASSERT_EQ(decl.key_fields_size(), 1);
    EXPECT_EQ(decl.key_fields(0), "message");
  }
  EXPECT_TRUE(found);
}

TEST_F(McpFakeServerTest, AllowList_OffersOnlyTheNamedTools) {
  std::unique_ptr<ToolRegistry> registry = Load("", "allow: [echo]\n");
  EXPECT_THAT(registry->Names(), Contains("fake_echo"));
  EXPECT_THAT(registry->Names(), Not(Contains("fake_hang")));
}

TEST_F(McpFakeServerTest, Call_KeepsTheContentBlocks) {
  std::unique_ptr<ToolRegistry> registry = Load();
  absl::StatusOr<std::string> result = Call(*registry, "fake_echo", R"({"message":"hi"})");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_EQ(*result, R"({"content":[{"type":"text","text":"hi"}]})");
}

TEST_F(McpFakeServerTest, IsErrorResult_IsAToolErrorWithTheServersText) {
  std::unique_ptr<ToolRegistry> registry = Load();
  EXPECT_THAT(Call(*registry, "fake_fail"),
              StatusIs(absl::StatusCode::kUnknown,
                       HasSubstr("MCP server 'fake', tool 'fail' failed: the thing is broken")));
}

TEST_F(McpFakeServerTest, HungServer_CallTimesOut_ServerIsToldToCancel_OtherCallsStillWork) {
  std::unique_ptr<ToolRegistry> registry = Load();
  const absl::Time start = absl::Now();
  EXPECT_THAT(Call(*registry, "fake_hang"),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("MCP server 'fake', tool 'hang': no answer within 2s")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_THAT(Call(*registry, "fake_echo", R"({"message":"still here"})"), IsOk());
  bool cancelled = false;
  int64_t hang_id = -1;
  for (const Json& message : Received()) {
    if (message.value("method", "") == "tools/call" && message["params"]["name"] == "hang") {
      hang_id = message["id"].get<int64_t>();
    }
    if (message.value("method", "") == "notifications/cancelled") {
      cancelled = message["params"]["requestId"] == hang_id;
    }
  }
  EXPECT_TRUE(cancelled) << "no notifications/cancelled for request " << hang_id;
}

TEST_F(McpFakeServerTest, TaskCancelled_CallEndsAtOnce) {
  std::unique_ptr<ToolRegistry> registry = Load();
  std::thread canceller([this] {
    absl::SleepFor(absl::Milliseconds(300));
    cancel_.Cancel("the run was cancelled");
  });
  const absl::Time start = absl::Now();
  EXPECT_THAT(Call(*registry, "fake_hang"),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("the run was cancelled")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(1.5));
  canceller.join();
}

TEST_F(McpFakeServerTest, GarbageFloodAndWrongIds_OnlyTheRightAnswerCounts) {
  std::unique_ptr<ToolRegistry> registry = Load();
  absl::StatusOr<std::string> result = Call(*registry, "fake_noisy");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_THAT(*result, HasSubstr("through the noise"));
}

TEST_F(McpFakeServerTest, ResultOverTheLimit_FailsThatCallOnly) {
  std::unique_ptr<ToolRegistry> registry = Load();
  EXPECT_THAT(Call(*registry, "fake_huge", absl::StrCat(R"({"bytes":)", 5 << 20, "}")),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("MCP server 'fake', tool 'huge': the answer is longer than")));
  EXPECT_THAT(Call(*registry, "fake_huge", R"({"bytes":1000})"), IsOk());
}

TEST_F(McpFakeServerTest, ServerCrashesMidCall_ThatCallFails_NextCallRestartsIt) {
  std::unique_ptr<ToolRegistry> registry = Load("", "", /*timeout_seconds=*/30);
  EXPECT_THAT(Call(*registry, "fake_crash"),
              StatusIs(absl::StatusCode::kUnavailable,
                       ::testing::AllOf(HasSubstr("MCP server 'fake', tool 'crash'"),
                                        HasSubstr("exited with code 3"),
                                        HasSubstr("crashing on purpose"))));
  absl::StatusOr<std::string> result = Call(*registry, "fake_echo", R"({"message":"back"})");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_THAT(*result, HasSubstr("back"));
}

TEST_F(McpFakeServerTest, TenThousandTools_ListingRefused_WorkerStillServesTheRest) {
  std::unique_ptr<ToolRegistry> registry = Load(R"(, "--tools", "10000", "--page-size", "500")");
  EXPECT_THAT(registry->Names(), Not(Contains("fake_echo")));
  EXPECT_THAT(registry->Names(), Contains("read_file"));
}

TEST_F(McpFakeServerTest, Pagination_FollowsEveryPage) {
  std::unique_ptr<ToolRegistry> registry = Load(R"(, "--tools", "30", "--page-size", "7")");
  EXPECT_THAT(registry->Names(), Contains("fake_echo"));
  EXPECT_THAT(registry->Names(), Contains("fake_dummy29"));
}

TEST_F(McpFakeServerTest, ListChanged_NewToolsAreOffered) {
  std::unique_ptr<ToolRegistry> registry = Load();
  EXPECT_THAT(registry->Names(), Not(Contains("fake_extra")));
  ASSERT_THAT(Call(*registry, "fake_add_tool"), IsOk());
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!registry->Find("fake_extra").ok() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  absl::StatusOr<std::string> result = Call(*registry, "fake_extra");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_THAT(*result, HasSubstr("extra"));
}

TEST_F(McpFakeServerTest, MissingProgram_WorkerStartsWithoutItsTools) {
  std::ofstream(dir_.path() / "gone.yaml") << "mcp:\n  command: ./no-such-server\n";
  absl::StatusOr<std::unique_ptr<ToolRegistry>> registry = LoadToolRegistry(dir_.path());
  ASSERT_THAT(registry.status(), IsOk());
  EXPECT_THAT((*registry)->Names(), Contains("read_file"));
}

}  // namespace
}  // namespace taskboard::worker
