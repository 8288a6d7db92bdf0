// The worker's MCP client against the reference servers nobody here wrote:
// @modelcontextprotocol/server-everything and server-filesystem from npm,
// pinned by tests/mcp/servers/package-lock.json (docs/mcp.md).

#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/marked_processes.h"
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

std::string ServerScript(const std::string& package) {
  return absl::StrCat(TASKBOARD_SOURCE_DIR,
                      "/tests/mcp/servers/node_modules/@modelcontextprotocol/", package,
                      "/dist/index.js");
}

class McpReferenceServersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* package : {"server-everything", "server-filesystem"}) {
      ASSERT_TRUE(std::filesystem::exists(ServerScript(package)))
          << ServerScript(package)
          << " is missing: run scripts/install-deps.sh --test (npm ci in tests/mcp/servers)";
    }
    marker_ = absl::StrCat("mcp-test-", getpid(), "-", reinterpret_cast<uintptr_t>(this));
    setenv("MCP_TEST_MARK", marker_.c_str(), 1);
    setenv("MCP_TEST_SECRET", "do-not-leak", 1);
  }

  std::unique_ptr<ToolRegistry> Load(const std::string& file, const std::string& text) {
    std::ofstream(tools_.path() / file) << text;
    absl::StatusOr<std::unique_ptr<ToolRegistry>> registry = LoadToolRegistry(tools_.path());
    EXPECT_THAT(registry.status(), IsOk());
    return registry.ok() ? *std::move(registry) : std::make_unique<ToolRegistry>();
  }

  std::unique_ptr<ToolRegistry> LoadEverything() {
    return Load("everything.yaml", absl::StrCat("mcp:\n  command: node\n  args: [\"",
                                                ServerScript("server-everything"),
                                                "\", stdio]\n  pass_env: [MCP_TEST_MARK]\n"
                                                "prefix: ev_\ntimeout_seconds: 20\n"));
  }

  absl::StatusOr<std::string> Call(const ToolRegistry& registry, const std::string& name,
                                   const std::string& args) {
    absl::StatusOr<std::shared_ptr<const Tool>> tool = registry.Find(name);
    if (!tool.ok()) return tool.status();
    return (*tool)->Execute(args, ToolContext{tools_.path(), &cancel_});
  }

  // The server processes (node), not the reapers that run them.
  std::vector<pid_t> ServerProcesses() const {
    std::vector<pid_t> servers;
    for (pid_t pid :
         taskboard::testing::ProcessesWithEnvironment(absl::StrCat("MCP_TEST_MARK=", marker_))) {
      if (!absl::StrContains(taskboard::testing::ReadProcFile(pid, "cmdline"), "reaper")) {
        servers.push_back(pid);
      }
    }
    return servers;
  }

  taskboard::testing::TempDir tools_;
  CancelToken cancel_;
  std::string marker_;
};

TEST_F(McpReferenceServersTest, Everything_ToolsListedWithTheirSchemas) {
  std::unique_ptr<ToolRegistry> registry = LoadEverything();
  EXPECT_THAT(registry->Names(), Contains("ev_echo"));
  EXPECT_THAT(registry->Names(), Contains("ev_get-sum"));
  bool found = false;
  for (const v1::ToolDeclaration& decl : registry->Declarations()) {
    if (decl.name() != "ev_get-sum") continue;
    found = true;
    absl::StatusOr<Json> schema = ParseJson(decl.parameters_schema_json());
    ASSERT_THAT(schema.status(), IsOk());
    EXPECT_EQ((*schema)["type"], "object");
    EXPECT_TRUE((*schema)["properties"].contains("a")) << decl.parameters_schema_json();
    EXPECT_TRUE((*schema)["properties"].contains("b")) << decl.parameters_schema_json();
    EXPECT_FALSE(decl.cacheable());
  }
  EXPECT_TRUE(found);
}

TEST_F(McpReferenceServersTest, Everything_CallsReturnTheirContentBlocks) {
  std::unique_ptr<ToolRegistry> registry = LoadEverything();
  absl::StatusOr<std::string> echo = Call(*registry, "ev_echo", R"({"message":"hello"})");
  ASSERT_THAT(echo.status(), IsOk());
  EXPECT_THAT(*echo, HasSubstr(R"("type":"text","text":"Echo: hello")"));
  absl::StatusOr<std::string> sum = Call(*registry, "ev_get-sum", R"({"a":2,"b":3})");
  ASSERT_THAT(sum.status(), IsOk());
  EXPECT_THAT(*sum, HasSubstr("5"));
  absl::StatusOr<std::string> image = Call(*registry, "ev_get-tiny-image", "{}");
  ASSERT_THAT(image.status(), IsOk());
  EXPECT_THAT(*image, HasSubstr(R"("type":"image")"));
  EXPECT_THAT(*image, HasSubstr(R"("mimeType":"image/png")"));
}

TEST_F(McpReferenceServersTest, Everything_GetsAScrubbedEnvironment) {
  std::unique_ptr<ToolRegistry> registry = LoadEverything();
  absl::StatusOr<std::string> env = Call(*registry, "ev_get-env", "{}");
  ASSERT_THAT(env.status(), IsOk());
  EXPECT_THAT(*env, HasSubstr(marker_)) << "pass_env names it";
  EXPECT_THAT(*env, Not(HasSubstr("do-not-leak"))) << "the worker's other variables stay";
}

TEST_F(McpReferenceServersTest, Everything_KilledMidCall_ThatCallFails_TheNextRecovers) {
  std::unique_ptr<ToolRegistry> registry = LoadEverything();
  absl::StatusOr<std::string> long_call;
  std::thread caller([&] {
    long_call =
        Call(*registry, "ev_trigger-long-running-operation", R"({"duration":10,"steps":5})");
  });
  absl::SleepFor(absl::Milliseconds(500));  // the call is in flight
  const std::vector<pid_t> servers = ServerProcesses();
  ASSERT_FALSE(servers.empty()) << "no server process is marked " << marker_;
  for (pid_t pid : servers) kill(pid, SIGKILL);
  const absl::Time killed = absl::Now();
  caller.join();
  EXPECT_LT(absl::Now() - killed, absl::Seconds(5)) << "the call waited out its timeout";
  EXPECT_THAT(long_call.status(), StatusIs(absl::StatusCode::kUnavailable,
                                           ::testing::AllOf(HasSubstr("MCP server 'everything'"),
                                                            HasSubstr("was killed by SIGKILL"))));
  absl::StatusOr<std::string> echo = Call(*registry, "ev_echo", R"({"message":"again"})");
  ASSERT_THAT(echo.status(), IsOk());
  EXPECT_THAT(*echo, HasSubstr("Echo: again"));
}

TEST_F(McpReferenceServersTest, Filesystem_ReadsInsideItsRoot_OutsideIsAToolError) {
  taskboard::testing::TempDir root;
  std::ofstream(root.path() / "notes.md") << "# shared notes\n";
  std::unique_ptr<ToolRegistry> registry =
      Load("fs.yaml",
           absl::StrCat("mcp:\n  command: node\n  args: [\"", ServerScript("server-filesystem"),
                        "\", \"", root.path().string(), "\"]\nprefix: fs_\n",
                        "tools:\n  read_text_file: {cacheable: true, key_fields: [path]}\n"));
  EXPECT_THAT(registry->Names(), Contains("fs_list_directory"));
  absl::StatusOr<std::string> read =
      Call(*registry, "fs_read_text_file",
           absl::StrCat(R"({"path":")", (root.path() / "notes.md").string(), R"("})"));
  ASSERT_THAT(read.status(), IsOk());
  EXPECT_THAT(*read, HasSubstr("# shared notes"));
  EXPECT_THAT(Call(*registry, "fs_read_text_file", R"({"path":"/etc/hostname"})"),
              StatusIs(absl::StatusCode::kUnknown,
                       ::testing::AllOf(HasSubstr("MCP server 'fs', tool 'read_text_file' failed"),
                                        HasSubstr("Access denied"))));
}

}  // namespace
}  // namespace taskboard::worker
