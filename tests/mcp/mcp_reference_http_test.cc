// The worker's client of Streamable HTTP MCP servers against the reference
// server nobody here wrote: @modelcontextprotocol/server-everything's
// `streamableHttp` transport (pinned by tests/mcp/servers/package-lock.json),
// run by everything_http.mjs on a port of its choosing
// (docs/mcp.md#streamable-http-servers).

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

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

class McpReferenceHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(
        absl::StrCat(TASKBOARD_SOURCE_DIR,
                     "/tests/mcp/servers/node_modules/@modelcontextprotocol/"
                     "server-everything/dist/transports/streamableHttp.js")))
        << "server-everything is missing: run scripts/install-deps.sh --test (npm ci in "
           "tests/mcp/servers)";
    ASSERT_NO_FATAL_FAILURE(StartServer(0));
  }

  // Starts the server on `port` (0: any free one) and waits for it.
  void StartServer(int port) {
    const std::string port_file = (dir_.path() / absl::StrCat("port.", ++starts_)).string();
    absl::StatusOr<std::unique_ptr<ChildProcess>> server =
        ChildProcess::Spawn({"/usr/bin/env", "node",
                             absl::StrCat(TASKBOARD_SOURCE_DIR, "/tests/mcp/everything_http.mjs"),
                             port_file, absl::StrCat(port)},
                            (dir_.path() / "server.out").string());
    ASSERT_THAT(server.status(), IsOk());
    server_ = *std::move(server);
    absl::StatusOr<int> chosen = WaitForPortFile(*server_, port_file, 60'000);
    ASSERT_THAT(chosen.status(), IsOk());
    port_ = *chosen;
  }

  std::unique_ptr<ToolRegistry> Load() {
    std::ofstream(tools_.path() / "everything.yaml")
        << "mcp: {url: 'http://127.0.0.1:" << port_ << "/mcp'}\nprefix: ev_\n"
        << "timeout_seconds: 30\n";
    absl::StatusOr<std::unique_ptr<ToolRegistry>> registry = LoadToolRegistry(tools_.path());
    EXPECT_THAT(registry.status(), IsOk());
    return registry.ok() ? *std::move(registry) : std::make_unique<ToolRegistry>();
  }

  absl::StatusOr<std::string> Call(const ToolRegistry& registry, const std::string& name,
                                   const std::string& args) {
    absl::StatusOr<std::shared_ptr<const Tool>> tool = registry.Find(name);
    if (!tool.ok()) return tool.status();
    return (*tool)->Execute(args, ToolContext{tools_.path(), &cancel_});
  }

  taskboard::testing::TempDir dir_;
  taskboard::testing::TempDir tools_;
  std::unique_ptr<ChildProcess> server_;
  int port_ = 0;
  int starts_ = 0;
  CancelToken cancel_;
};

TEST_F(McpReferenceHttpTest, Everything_ToolsListedWithTheirSchemas) {
  std::unique_ptr<ToolRegistry> registry = Load();
  EXPECT_THAT(registry->Names(), Contains("ev_echo"));
  bool found = false;
  for (const v1::ToolDeclaration& decl : registry->Declarations()) {
    if (decl.name() != "ev_get-sum") continue;
    found = true;
    absl::StatusOr<Json> schema = ParseJson(decl.parameters_schema_json());
    ASSERT_THAT(schema.status(), IsOk());
    EXPECT_EQ((*schema)["type"], "object");
    EXPECT_TRUE((*schema)["properties"].contains("a")) << decl.parameters_schema_json();
    EXPECT_TRUE((*schema)["properties"].contains("b")) << decl.parameters_schema_json();
  }
  EXPECT_TRUE(found);
}

TEST_F(McpReferenceHttpTest, Everything_CallsReturnTheirContentBlocks) {
  std::unique_ptr<ToolRegistry> registry = Load();
  absl::StatusOr<std::string> echo = Call(*registry, "ev_echo", R"({"message":"hello"})");
  ASSERT_THAT(echo.status(), IsOk());
  EXPECT_THAT(*echo, HasSubstr(R"("type":"text","text":"Echo: hello")"));
  absl::StatusOr<std::string> sum = Call(*registry, "ev_get-sum", R"({"a":2,"b":3})");
  ASSERT_THAT(sum.status(), IsOk());
  EXPECT_THAT(*sum, HasSubstr("5"));
  // Progress notifications come on the call's stream before its answer.
  absl::StatusOr<std::string> long_call =
      Call(*registry, "ev_trigger-long-running-operation", R"({"duration":1,"steps":3})");
  ASSERT_THAT(long_call.status(), IsOk());
}

TEST_F(McpReferenceHttpTest, Everything_KilledMidCall_ThatCallFails_TheNextRecoversAfterRestart) {
  std::unique_ptr<ToolRegistry> registry = Load();
  absl::StatusOr<std::string> long_call;
  std::thread caller([&] {
    long_call =
        Call(*registry, "ev_trigger-long-running-operation", R"({"duration":10,"steps":5})");
  });
  absl::SleepFor(absl::Milliseconds(500));  // the call is in flight
  server_->KillGroup();
  const absl::Time killed = absl::Now();
  caller.join();
  EXPECT_LT(absl::Now() - killed, absl::Seconds(5)) << "the call waited out its timeout";
  EXPECT_THAT(long_call.status(),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr("MCP server 'everything', tool "
                                       "'trigger-long-running-operation'"),
                             HasSubstr("the connection to the server failed"))));
  ASSERT_NO_FATAL_FAILURE(StartServer(port_));
  absl::StatusOr<std::string> echo = Call(*registry, "ev_echo", R"({"message":"again"})");
  ASSERT_THAT(echo.status(), IsOk());
  EXPECT_THAT(*echo, HasSubstr("Echo: again"));
}

TEST_F(McpReferenceHttpTest, Everything_RestartedWhileIdle_TheStaleSessionIsReplaced) {
  std::unique_ptr<ToolRegistry> registry = Load();
  ASSERT_THAT(Call(*registry, "ev_echo", R"({"message":"one"})"), IsOk());
  server_->KillGroup();
  ASSERT_NO_FATAL_FAILURE(StartServer(port_));
  // The old session id gets a 400 from this server (404 by the
  // specification); either way the call goes again on a new session. The
  // GET stream may have noticed the restart first, which ends the session
  // and costs the call one restart backoff instead.
  absl::StatusOr<std::string> echo = Call(*registry, "ev_echo", R"({"message":"two"})");
  ASSERT_THAT(echo.status(), IsOk());
  EXPECT_THAT(*echo, HasSubstr("Echo: two"));
}

}  // namespace
}  // namespace taskboard::worker
