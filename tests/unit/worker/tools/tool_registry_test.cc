// The tool registry: built-ins, declarations for Hello, duplicate names.

#include "worker/tools/tool_registry.h"

#include <fstream>
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/worker/tools/test_tools.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::testing::TempDir;
using ::taskboard::worker::testing::CountingTool;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ToolRegistry, Builtins_DeclaredSortedWithCacheDefaults) {
  absl::StatusOr<std::unique_ptr<ToolRegistry>> registry = LoadToolRegistry("");
  ASSERT_THAT(registry, IsOk());
  const std::vector<v1::ToolDeclaration> tools = (*registry)->Declarations();
  // Sorted: flow_state, list_files, read_file, then the state_* tools.
  ASSERT_EQ(tools.size(), 7u);
  EXPECT_EQ(tools[1].name(), "list_files");
  EXPECT_EQ(tools[2].name(), "read_file");
  EXPECT_FALSE(tools[0].cacheable());
  const v1::ToolDeclaration& read_file = tools[2];
  EXPECT_TRUE(read_file.cacheable());
  EXPECT_EQ(read_file.default_scope(), v1::CACHE_SCOPE_RUN);
  EXPECT_EQ(read_file.default_ttl_ms(), 60000);
  EXPECT_THAT(read_file.key_fields(), ElementsAre("path"));
  EXPECT_THAT(read_file.parameters_schema_json(), HasSubstr(R"("required":["path"])"));
  EXPECT_TRUE(tools[1].cacheable());
}

TEST(ToolRegistry, DuplicateName_RejectedNamingBothDefinitions) {
  ToolRegistry registry;
  ASSERT_THAT(registry.Add(std::make_unique<CountingTool>("echo")), IsOk());
  EXPECT_THAT(registry.Add(std::make_unique<CountingTool>("echo")),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       AllOf(HasSubstr("tool 'echo' is defined twice"), HasSubstr("by test"))));
}

TEST(ToolRegistry, UnknownTool_NotFoundListingTheOfferedOnes) {
  ToolRegistry registry;
  ASSERT_THAT(registry.Add(std::make_unique<CountingTool>("b")), IsOk());
  ASSERT_THAT(registry.Add(std::make_unique<CountingTool>("a")), IsOk());
  EXPECT_THAT(registry.Find("c"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("unknown tool 'c' (this worker offers: a, b)")));
  ASSERT_THAT(registry.Find("a"), IsOk());
  EXPECT_EQ((*registry.Find("a"))->name(), "a");
}

TEST(ToolRegistry, ToolsDir_AddsCommandToolsAfterBuiltins) {
  TempDir dir;
  std::ofstream(dir.path() / "wc.yaml") << "command: [wc, -w]\ncacheable: true\n";
  absl::StatusOr<std::unique_ptr<ToolRegistry>> registry = LoadToolRegistry(dir.path());
  ASSERT_THAT(registry, IsOk());
  EXPECT_THAT((*registry)->Names(),
              ElementsAre("flow_state", "list_files", "read_file", "state_delete", "state_get",
                          "state_list", "state_set", "wc"));
}

TEST(ToolRegistry, ToolFileReusingABuiltinName_Rejected) {
  TempDir dir;
  std::ofstream(dir.path() / "mine.yaml") << "name: read_file\ncommand: [cat]\n";
  EXPECT_THAT(LoadToolRegistry(dir.path()),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       AllOf(HasSubstr("tool 'read_file' is defined twice: by built-in"),
                             HasSubstr("mine.yaml"))));
}

TEST(ToolRegistry, MissingToolsDir_NotFound) {
  EXPECT_THAT(LoadToolRegistry("/nonexistent/tools"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("pass --tools a directory")));
}

}  // namespace
}  // namespace taskboard::worker
