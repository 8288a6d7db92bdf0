// MCP server files (docs/mcp.md#the-server-file): what they declare and the
// errors that name the file and the field. No server is started here.

#include "worker/tools/mcp/mcp_server_file.h"

#include <fstream>
#include <string>

#include "common/yaml_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "worker/tools/command_tool.h"
#include "worker/tools/tool_registry.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

absl::StatusOr<McpServerDefinition> Parse(const std::string& yaml,
                                          const std::string& path = "/tools/github.yaml") {
  absl::StatusOr<Json> doc = ParseYamlAsJson(yaml);
  if (!doc.ok()) return doc.status();
  return ParseMcpServerDocument(path, *doc);
}

TEST(McpServerFile, Stdio_AllFields) {
  absl::StatusOr<McpServerDefinition> def = Parse(R"(
mcp:
  command: ./bin/server
  args: [--root, /data]
  pass_env: [GITHUB_TOKEN]
prefix: gh_
allow: [search_issues]
timeout_seconds: 5
tools:
  search_issues: {cacheable: true, ttl_ms: 60000, scope: run, key_fields: [query]}
)");
  ASSERT_THAT(def.status(), IsOk());
  EXPECT_EQ(def->name, "github");
  EXPECT_THAT(def->argv, ElementsAre("/tools/bin/server", "--root", "/data"));
  EXPECT_THAT(def->pass_env, ElementsAre("GITHUB_TOKEN"));
  EXPECT_EQ(def->prefix, "gh_");
  ASSERT_TRUE(def->allow.has_value());
  EXPECT_THAT(*def->allow, ElementsAre("search_issues"));
  EXPECT_EQ(def->call_timeout, absl::Seconds(5));
  const v1::ToolDeclaration& cache = def->tools.at("search_issues");
  EXPECT_TRUE(cache.cacheable());
  EXPECT_EQ(cache.default_ttl_ms(), 60000);
  EXPECT_EQ(cache.default_scope(), v1::CACHE_SCOPE_RUN);
  EXPECT_THAT(cache.key_fields(), ElementsAre("query"));
}

TEST(McpServerFile, Defaults_NameFromTheFile_AllToolsNotCacheable_SixtySeconds) {
  absl::StatusOr<McpServerDefinition> def = Parse("mcp: {command: npx}\n");
  ASSERT_THAT(def.status(), IsOk());
  EXPECT_EQ(def->name, "github");
  EXPECT_THAT(def->argv, ElementsAre("npx"));
  EXPECT_FALSE(def->allow.has_value());
  EXPECT_TRUE(def->tools.empty());
  EXPECT_EQ(def->call_timeout, absl::Seconds(60));
}

TEST(McpServerFile, StreamableHttp_HeadersNameEnvironmentVariables) {
  absl::StatusOr<McpServerDefinition> def = Parse(R"(
name: remote
mcp:
  url: https://mcp.example.com/mcp
  headers: {Authorization: REMOTE_MCP_AUTH}
)");
  ASSERT_THAT(def.status(), IsOk());
  EXPECT_EQ(def->name, "remote");
  EXPECT_EQ(def->url, "https://mcp.example.com/mcp");
  EXPECT_THAT(def->header_env, ElementsAre(Pair("Authorization", "REMOTE_MCP_AUTH")));
  EXPECT_TRUE(def->argv.empty());
}

TEST(McpServerFile, Mistakes_NameTheFileAndTheField) {
  struct Case {
    std::string yaml;
    std::string says;
  };
  const Case cases[] = {
      {"mcp: {command: x}\nflavour: 1\n", "unknown field 'flavour'"},
      {"mcp: {command: x, env: {A: b}}\n", "unknown field 'mcp.env'"},
      {"mcp: {}\n", "exactly one of 'command'"},
      {"mcp: {command: x, url: 'http://h'}\n", "exactly one of 'command'"},
      {"mcp: x\n", "field 'mcp' must be an object"},
      {"mcp: {url: 'ftp://h'}\n", "'mcp.url' must be the server's http:// or https://"},
      {"mcp: {command: x, pass_env: [TASKBOARD_TOKEN]}\n", "field 'mcp.pass_env'"},
      {"mcp: {url: 'http://h', headers: {A: 1}}\n", "field 'mcp.headers.A'"},
      {"mcp: {url: 'http://h', headers: {'a b': X}}\n", "'a b' is not a header name"},
      {"mcp: {url: 'http://h', headers: {Mcp-Session-Id: X}}\n",
       "the worker sets 'Mcp-Session-Id' itself"},
      {"mcp: {command: x}\nprefix: 'a b'\n", "field 'prefix'"},
      {"mcp: {command: x}\ntimeout_seconds: 0\n", "timeout_seconds"},
      {"mcp: {command: x}\ntools: {echo: {cacheable: maybe}}\n",
       "in 'tools.echo': field 'cacheable'"},
      {"mcp: {command: x}\ntools: {echo: {ttl: 5}}\n", "unknown field 'tools.echo.ttl'"},
      {"mcp: {command: x}\ntools: {echo: {scope: forever}}\n", "one of run, request, session"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(Parse(c.yaml),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         ::testing::AllOf(HasSubstr("MCP server file /tools/github.yaml"),
                                          HasSubstr(c.says))))
        << c.yaml;
  }
}

TEST(McpServerFile, ToolsDirectory_CommandToolsSkipServerFiles_ServerFilesSkipCommandTools) {
  TempDir dir;
  std::ofstream(dir.path() / "hello.yaml") << "command: [\"/bin/echo\"]\n";
  std::ofstream(dir.path() / "fs.json") << R"({"mcp": {"command": "npx"}})";
  absl::StatusOr<std::vector<std::unique_ptr<Tool>>> tools = LoadCommandTools(dir.path());
  ASSERT_THAT(tools.status(), IsOk());
  ASSERT_EQ(tools->size(), 1u);
  EXPECT_EQ((*tools)[0]->name(), "hello");
  absl::StatusOr<std::vector<McpServerDefinition>> servers = LoadMcpServerFiles(dir.path());
  ASSERT_THAT(servers.status(), IsOk());
  ASSERT_EQ(servers->size(), 1u);
  EXPECT_EQ((*servers)[0].name, "fs");
}

TEST(McpServerFile, StreamableHttpServerUnreachable_WorkerStartsWithoutItsTools) {
  TempDir dir;
  std::ofstream(dir.path() / "remote.yaml") << "mcp: {url: 'http://127.0.0.1:1/mcp'}\n";
  absl::StatusOr<std::unique_ptr<ToolRegistry>> registry = LoadToolRegistry(dir.path());
  ASSERT_THAT(registry.status(), IsOk());
  EXPECT_THAT((*registry)->Names(), ::testing::Contains("read_file"));
}

}  // namespace
}  // namespace taskboard::worker
