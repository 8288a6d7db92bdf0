#include "tools/cli/validate_command.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(TASKBOARD_SOURCE_DIR) / "examples" / "flows";

struct Result {
  int exit_code;
  std::string out;
  std::string err;
};

Result Validate(const std::string& path, bool quiet = false) {
  std::ostringstream out, err;
  const int code = RunValidate({path, quiet}, out, err);
  return {code, out.str(), err.str()};
}

std::vector<fs::path> ExampleFlows() {
  std::vector<fs::path> flows;
  for (const auto& entry : fs::directory_iterator(kExamples)) {
    const std::string ext = entry.path().extension().string();
    if ((ext == ".yaml" || ext == ".yml" || ext == ".json") &&
        entry.path().filename() != "broken.json") {
      flows.push_back(entry.path());
    }
  }
  return flows;
}

TEST(ValidateCommand, EveryExampleFlow_IsValid) {
  const std::vector<fs::path> flows = ExampleFlows();
  ASSERT_GE(flows.size(), 5u) << "examples/flows should hold at least five flows";
  for (const fs::path& flow : flows) {
    SCOPED_TRACE(flow.string());
    Result result = Validate(flow.string());
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr("valid: "));
    EXPECT_THAT(result.err, IsEmpty());
  }
}

TEST(ValidateCommand, RepoDigest_PrintsLayersAndDesugaredFlow) {
  Result result = Validate((kExamples / "repo-digest.yaml").string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(HasSubstr("layers:"), HasSubstr("discover"), HasSubstr("[final]"),
                                HasSubstr("desugared flow:"), HasSubstr("\"phases\"")));
}

TEST(ValidateCommand, Board_PrintsTaskLayers) {
  Result result = Validate((kExamples / "triage-board.yaml").string(), /*quiet=*/true);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(HasSubstr("(board, "), HasSubstr("layers:"), HasSubstr("task  ")));
}

TEST(ValidateCommand, PlanAndExecute_PrintsRoles) {
  Result result = Validate((kExamples / "nested-plan-supervisor.yaml").string(), /*quiet=*/true);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(HasSubstr("(plan_and_execute)"), HasSubstr("planner"),
                                HasSubstr("child supervisor run"), HasSubstr("reviewer")));
}

TEST(ValidateCommand, PatternPhases_ShownWithTheirPattern) {
  Result result = Validate((kExamples / "compose-research.yaml").string(), /*quiet=*/true);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(HasSubstr("research  map       agent=researcher"),
                                HasSubstr("each item: supervise"),
                                HasSubstr("report    plan      agent=writer")));
}

TEST(ValidateCommand, SavedFlowStepExecutor_NamedAmongTheRoles) {
  const fs::path path = fs::temp_directory_path() / "taskboard_validate_step_flow.yaml";
  std::ofstream(path) << "name: p\nplanAndExecute: {goal: g, stepExecutor: {flow: do-step}}\n";
  Result result = Validate(path.string(), /*quiet=*/true);
  fs::remove(path);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("each step runs as a child run of the saved flow 'do-step'"));
}

TEST(ValidateCommand, OmittedAgents_ShownAsTheDefaultAgent) {
  Result result = Validate((kExamples / "quick-supervisor.yaml").string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              AllOf(HasSubstr("planner      (default agent)"), HasSubstr("worker       writer"),
                    HasSubstr("reviewer     (default agent)")));
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr(R"("plannerAgent")")))
      << "the desugared flow is what the file says";
}

TEST(ValidateCommand, Quiet_OmitsDesugaredFlow) {
  Result result = Validate((kExamples / "repo-digest.yaml").string(), /*quiet=*/true);
  ASSERT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr("desugared flow:")));
}

TEST(ValidateCommand, BrokenFlow_PrintsEveryErrorWithPathAndExits1) {
  Result result = Validate((kExamples / "broken.json").string());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, AllOf(HasSubstr("invalid flow"), HasSubstr("dependency cycle: "),
                                HasSubstr(".dependsOn[0]: unknown phase '"),
                                HasSubstr(".final: more than one final phase"),
                                HasSubstr(".over: a map phase needs `over`")));
}

TEST(ValidateCommand, MissingFile_Exits2WithHint) {
  Result result = Validate("/nonexistent/flow.yaml");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("cannot read '/nonexistent/flow.yaml'"));
}

TEST(ValidateCommand, SyntaxError_Exits1WithPosition) {
  const fs::path path = fs::temp_directory_path() / "taskboard_validate_syntax_error.json";
  {
    std::ofstream file(path);
    file << "{\"name\": \"x\",\n \"phases\": [ }";
  }
  Result result = Validate(path.string());
  fs::remove(path);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("invalid JSON at line 2"));
}

// The file that once crashed the CLI with SIGSEGV before it sent anything:
// 100,000 `[` (100 KB). Now one error naming the depth limit, like any other
// invalid flow, for both JSON and YAML.
TEST(ValidateCommand, HundredThousandDeepFile_Exits1NamingTheDepthLimit) {
  for (const char* name : {"taskboard_validate_deep.json", "taskboard_validate_deep.yaml"}) {
    SCOPED_TRACE(name);
    const fs::path path = fs::temp_directory_path() / name;
    {
      std::ofstream file(path);
      file << (path.extension() == ".json" ? "{\"name\": " : "name: ") << std::string(100'000, '[');
    }
    Result result = Validate(path.string());
    fs::remove(path);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_THAT(result.err, HasSubstr("limit of 64 levels"));
    EXPECT_THAT(result.err, HasSubstr("--max-json-depth"));
  }
}

}  // namespace
}  // namespace taskboard::cli
