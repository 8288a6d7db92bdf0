#include "worker/agents/agent_registry.h"

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::taskboard::testing::TempDir;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

void WriteFile(const std::filesystem::path& path, absl::string_view text) {
  std::ofstream(path) << text;
}

std::vector<std::string> AdvertisedNames(const AgentRegistry& registry) {
  std::vector<std::string> names;
  for (const v1::AgentInfo& info : registry.Advertised()) names.push_back(info.name());
  return names;
}

TEST(AgentRegistry, NoDirectory_OffersTheBuiltInNoop) {
  absl::StatusOr<std::unique_ptr<AgentRegistry>> registry = AgentRegistry::Load("", {});
  ASSERT_THAT(registry, IsOk());
  EXPECT_THAT(AdvertisedNames(**registry), ElementsAre("noop"));
  absl::StatusOr<const Agent*> noop = (*registry)->Find("noop");
  ASSERT_THAT(noop, IsOk());
  EXPECT_EQ((*noop)->info().type(), "noop");
}

TEST(AgentRegistry, LoadsEveryAgentFileFormat_IgnoresOtherFiles) {
  TempDir dir;
  WriteFile(dir.path() / "a.json", R"({"command": ["cat"], "description": "A"})");
  WriteFile(dir.path() / "b.yaml", "command: [cat]\nmodel: m\n");
  WriteFile(dir.path() / "c.yml", "type: noop\n");
  WriteFile(dir.path() / "d.md", "---\nname: dee\ncommand: [cat]\n---\nbody\n");
  WriteFile(dir.path() / "e.sh", "#!/bin/sh\n");
  WriteFile(dir.path() / "README", "not an agent\n");
  std::filesystem::create_directory(dir.path() / "nested.yaml");

  absl::StatusOr<std::unique_ptr<AgentRegistry>> registry = AgentRegistry::Load(dir.path(), {});
  ASSERT_THAT(registry, IsOk());
  EXPECT_THAT(AdvertisedNames(**registry), ElementsAre("a", "b", "c", "dee", "noop"));
  const std::vector<v1::AgentInfo> infos = (*registry)->Advertised();
  EXPECT_EQ(infos[0].description(), "A");
  EXPECT_EQ(infos[0].type(), "command");
  EXPECT_EQ(infos[1].model(), "m");
  EXPECT_EQ(infos[2].type(), "noop");
}

TEST(AgentRegistry, DuplicateNames_ErrorNamesBothFiles) {
  TempDir dir;
  WriteFile(dir.path() / "one.yaml", "name: scout\ncommand: [cat]\n");
  WriteFile(dir.path() / "two.json", R"({"name": "scout", "command": ["cat"]})");
  EXPECT_THAT(AgentRegistry::Load(dir.path(), {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("agent name 'scout' is defined twice"),
                             HasSubstr((dir.path() / "one.yaml").string()),
                             HasSubstr((dir.path() / "two.json").string()))));
}

TEST(AgentRegistry, BadFile_FailsTheDirectoryNamingTheFile) {
  TempDir dir;
  WriteFile(dir.path() / "good.yaml", "command: [cat]\n");
  WriteFile(dir.path() / "bad.yaml", "command: [cat]\nretries: 3\n");
  EXPECT_THAT(
      AgentRegistry::Load(dir.path(), {}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr((dir.path() / "bad.yaml").string() + ": unknown field 'retries'")));
}

TEST(AgentRegistry, LlmAgent_IsOffered) {
  TempDir dir;
  WriteFile(dir.path() / "planner.md", "---\nmodel: gpt-4.1\n---\nYou plan.\n");
  WriteFile(dir.path() / "echo.yaml", "command: [cat]\n");
  absl::StatusOr<std::unique_ptr<AgentRegistry>> registry = AgentRegistry::Load(dir.path(), {});
  ASSERT_THAT(registry, IsOk());
  EXPECT_THAT(AdvertisedNames(**registry), ElementsAre("echo", "noop", "planner"));
  EXPECT_THAT((*registry)->unavailable(), ::testing::IsEmpty());
  absl::StatusOr<const Agent*> planner = (*registry)->Find("planner");
  ASSERT_THAT(planner, IsOk());
  EXPECT_EQ((*planner)->info().type(), "llm");
  EXPECT_EQ((*planner)->info().model(), "gpt-4.1");
}

TEST(AgentRegistry, FileNamedNoop_Fails) {
  TempDir dir;
  WriteFile(dir.path() / "noop.yaml", "command: [cat]\n");
  EXPECT_THAT(AgentRegistry::Load(dir.path(), {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the name 'noop' is taken by the built-in noop agent")));
}

TEST(AgentRegistry, MissingDirectory_NotFound) {
  EXPECT_THAT(AgentRegistry::Load("/nonexistent/agents", {}),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("agents directory '/nonexistent/agents' does not exist")));
}

TEST(AgentRegistry, UnknownAgent_NotFoundListsTheOfferedOnes) {
  TempDir dir;
  WriteFile(dir.path() / "scout.yaml", "command: [cat]\n");
  absl::StatusOr<std::unique_ptr<AgentRegistry>> registry = AgentRegistry::Load(dir.path(), {});
  ASSERT_THAT(registry, IsOk());
  EXPECT_THAT((*registry)->Find("writer"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("this worker has no agent 'writer' (it offers: noop, scout)")));
}

}  // namespace
}  // namespace taskboard::worker
