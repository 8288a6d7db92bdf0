// The line of `taskboard show` that says where a child run comes from
// (docs/semantics.md#nested-runs): the task whose agent started it, or its
// parent run, and its depth.

#include "tools/cli/started_by_line.h"

#include "gtest/gtest.h"
#include "tests/cli/fake_scheduler.h"

namespace taskboard::cli {
namespace {

using testing::ParseText;

TEST(StartedByLine, RootRun_NoLine) {
  EXPECT_EQ(StartedByLine(ParseText<v1::Run>(R"pb(run_id: "r1")pb")), "");
}

TEST(StartedByLine, StartedByAnAgent_NamesTheTaskTheRunAndTheDepth) {
  EXPECT_EQ(StartedByLine(ParseText<v1::Run>(R"pb(
              run_id: "r2" parent_run_id: "r1" root_run_id: "r1" parent_task_id: "research"
              depth: 1)pb")),
            "started by: task research of run r1 (depth 1)");
}

TEST(StartedByLine, PatternChild_NamesTheParentRunAndTheDepth) {
  EXPECT_EQ(StartedByLine(ParseText<v1::Run>(R"pb(
              run_id: "r3" parent_run_id: "r2" root_run_id: "r1" depth: 2)pb")),
            "child of: run r2 (depth 2)");
}

}  // namespace
}  // namespace taskboard::cli
