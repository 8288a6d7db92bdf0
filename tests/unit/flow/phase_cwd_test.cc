// A phase's `cwd` cannot point a flow's agents outside the worker's workspace
// root: absolute paths and `..` are validation errors naming the field.

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/task_cwd.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::LoadFlowErrors;
using ::taskboard::testing::LoadValidFlow;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A flow whose second phase has `cwd`.
std::string FlowWithCwd(absl::string_view cwd_json) {
  return absl::StrCat(R"({"name": "f", "phases": [{"id": "a", "task": "x"},
      {"id": "b", "task": "y", "cwd": )",
                      cwd_json, "}]}");
}

TEST(PhaseCwd, Root_IsAValidationErrorNamingTheField) {
  EXPECT_THAT(LoadFlowErrors(FlowWithCwd(R"("/")")),
              ElementsAre("phases[1].cwd: cwd '/' is an absolute path; give a directory relative "
                          "to the worker's workspace root (--workspace-root), such as \"repo\" or "
                          "\"repo/src\", or leave cwd out to work in the root itself"));
}

TEST(PhaseCwd, AbsolutePathElsewhere_Refused) {
  EXPECT_THAT(LoadFlowErrors(FlowWithCwd(R"("/etc")")),
              ElementsAre(HasSubstr("phases[1].cwd: cwd '/etc' is an absolute path")));
}

TEST(PhaseCwd, DotDotComponents_Refused) {
  EXPECT_THAT(LoadFlowErrors(FlowWithCwd(R"("../../..")")),
              ElementsAre(HasSubstr("phases[1].cwd: cwd '../../..' contains '..', which could "
                                    "leave the workspace root; give a directory relative")));
  EXPECT_THAT(LoadFlowErrors(FlowWithCwd(R"("repo/../../x")")),
              ElementsAre(HasSubstr("phases[1].cwd: cwd 'repo/../../x' contains '..'")));
}

TEST(PhaseCwd, RelativeDirectories_Accepted) {
  EXPECT_EQ(LoadValidFlow(FlowWithCwd(R"("repo/src")")).taskflow().phases(1).cwd(), "repo/src");
  EXPECT_EQ(LoadValidFlow(FlowWithCwd(R"("./repo")")).taskflow().phases(1).cwd(), "./repo");
  // `..` inside a name is not a component.
  EXPECT_EQ(LoadValidFlow(FlowWithCwd(R"("v..2")")).taskflow().phases(1).cwd(), "v..2");
}

TEST(CheckTaskCwd, EmptyMeansTheRoot) { EXPECT_THAT(CheckTaskCwd(""), IsOk()); }

TEST(CheckTaskCwd, NulByte_Refused) {
  EXPECT_THAT(CheckTaskCwd(absl::string_view("a\0b", 3)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NUL byte")));
}

}  // namespace
}  // namespace taskboard::flow
