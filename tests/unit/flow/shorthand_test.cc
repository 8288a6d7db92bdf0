#include "scheduler/flow/shorthand.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_loader.h"
#include "scheduler/flow/phase_graph.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::FlowErrorLines;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::LoadFlowErrors;
using ::taskboard::testing::LoadValidFlow;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---------------------------------------------------------------------------
// {task, agent?}

TEST(Shorthand, Task_WithAgent_BecomesFinalMainPhaseNamedTask) {
  v1::FlowSpec spec = LoadValidFlow(R"({"task": "Summarize src/", "agent": "explorer"})");
  EXPECT_EQ(spec.name(), "task");
  ASSERT_EQ(spec.taskflow().phases_size(), 1);
  const v1::Phase& phase = spec.taskflow().phases(0);
  EXPECT_EQ(phase.id(), "main");
  EXPECT_EQ(phase.type(), v1::PHASE_TYPE_AGENT);
  EXPECT_EQ(phase.task(), "Summarize src/");
  EXPECT_EQ(phase.agent(), "explorer");
  EXPECT_TRUE(phase.is_final());
}

TEST(Shorthand, Task_WithoutAgent_LeavesAgentEmpty) {
  v1::FlowSpec spec = LoadValidFlow(R"({"task": "Summarize src/"})");
  EXPECT_EQ(spec.taskflow().phases(0).agent(), "");
}

TEST(Shorthand, Task_NameDescriptionConcurrencyArgs_CarriedThrough) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "sum", "description": "d", "concurrency": 3,
      "args": {"dir": {"default": "src"}}, "task": "Summarize {args.dir}"})");
  EXPECT_EQ(spec.name(), "sum");
  EXPECT_EQ(spec.description(), "d");
  EXPECT_EQ(spec.taskflow().concurrency(), 3);
  ASSERT_EQ(spec.args_size(), 1);
  EXPECT_EQ(spec.args(0).name(), "dir");
  EXPECT_EQ(spec.args(0).default_value().string_value(), "src");
}

TEST(Shorthand, Task_BadPlaceholder_ReportedAtTask) {
  EXPECT_THAT(LoadFlowErrors(R"({"task": "use {steps.x.output}"})"),
              ElementsAre("task: {steps.x.output} refers to unknown phase 'x'"));
}

TEST(Shorthand, Task_AgentNotAString_ReportedAtAgent) {
  EXPECT_THAT(LoadFlowErrors(R"({"task": "t", "agent": 5})"),
              ElementsAre("agent: must be a string (got a number)"));
}

TEST(Shorthand, Task_UnknownTopLevelField_ReportedAtItsPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"task": "t", "agnet": "scout"})"),
              ElementsAre("agnet: unknown field 'agnet'"));
}

// ---------------------------------------------------------------------------
// {tasks: [...]}

TEST(Shorthand, Tasks_BecomeParallelPhaseNamedParallel) {
  v1::FlowSpec spec = LoadValidFlow(
      R"({"tasks": ["review auth", {"task": "review db", "agent": "dba"}], "agent": "rev"})");
  EXPECT_EQ(spec.name(), "parallel");
  ASSERT_EQ(spec.taskflow().phases_size(), 1);
  const v1::Phase& phase = spec.taskflow().phases(0);
  EXPECT_EQ(phase.id(), "parallel");
  EXPECT_EQ(phase.type(), v1::PHASE_TYPE_PARALLEL);
  EXPECT_TRUE(phase.is_final());
  ASSERT_EQ(phase.branches_size(), 2);
  EXPECT_EQ(phase.branches(0).task(), "review auth");
  EXPECT_EQ(phase.branches(0).agent(), "rev");
  EXPECT_EQ(phase.branches(1).task(), "review db");
  EXPECT_EQ(phase.branches(1).agent(), "dba");
}

TEST(Shorthand, Tasks_EntryWithUnknownField_ReportedAtTasksPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"tasks": ["a", {"task": "b", "modle": "x"}]})"),
              ElementsAre("tasks[1].modle: unknown field 'modle'"));
}

TEST(Shorthand, Tasks_EntryNotAnObject_ReportedAtTasksPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"tasks": [3]})"),
              ElementsAre("tasks[0]: must be an object (got a number)"));
}

// ---------------------------------------------------------------------------
// {chain: [...]}

TEST(Shorthand, Chain_BecomesDependentStepsLastFinal) {
  v1::FlowSpec spec =
      LoadValidFlow(R"({"chain": ["explore auth", {"task": "summarize {previous.output}",
                               "agent": "writer"}, "review {steps.step1.output}"]})");
  EXPECT_EQ(spec.name(), "chain");
  const v1::TaskflowSpec& flow = spec.taskflow();
  ASSERT_EQ(flow.phases_size(), 3);
  EXPECT_EQ(flow.phases(0).id(), "step1");
  EXPECT_EQ(flow.phases(0).task(), "explore auth");
  EXPECT_THAT(flow.phases(0).depends_on(), IsEmpty());
  EXPECT_FALSE(flow.phases(0).is_final());
  EXPECT_EQ(flow.phases(1).id(), "step2");
  EXPECT_EQ(flow.phases(1).agent(), "writer");
  EXPECT_THAT(flow.phases(1).depends_on(), ElementsAre("step1"));
  EXPECT_FALSE(flow.phases(1).is_final());
  EXPECT_EQ(flow.phases(2).id(), "step3");
  EXPECT_THAT(flow.phases(2).depends_on(), ElementsAre("step2"));
  EXPECT_TRUE(flow.phases(2).is_final());
  EXPECT_EQ(FinalPhaseId(flow), "step3");
}

TEST(Shorthand, Chain_TopLevelAgent_IsDefaultAgentOfSteps) {
  v1::FlowSpec spec = LoadValidFlow(
      R"({"agent": "scout", "chain": ["a", {"task": "b"}, {"task": "c", "agent": "other"}]})");
  const v1::TaskflowSpec& flow = spec.taskflow();
  EXPECT_EQ(flow.phases(0).agent(), "scout");
  EXPECT_EQ(flow.phases(1).agent(), "scout");
  EXPECT_EQ(flow.phases(2).agent(), "other");
}

TEST(Shorthand, Chain_ProvidedNameAndOptions_Kept) {
  v1::FlowSpec spec =
      LoadValidFlow(R"({"name": "pipeline", "description": "two steps", "concurrency": 2,
      "args": {"x": {"required": true}}, "chain": ["a {args.x}", "b"]})");
  EXPECT_EQ(spec.name(), "pipeline");
  EXPECT_EQ(spec.description(), "two steps");
  EXPECT_EQ(spec.taskflow().concurrency(), 2);
  ASSERT_EQ(spec.args_size(), 1);
  EXPECT_TRUE(spec.args(0).required());
}

TEST(Shorthand, Chain_StepWithUnknownField_ReportedAtChainPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"chain": ["a", {"task": "b", "agnt": "x"}]})"),
              ElementsAre("chain[1].agnt: unknown field 'agnt'; did you mean 'agent'?"));
}

TEST(Shorthand, Chain_StepThatIsANumber_ReportedAtChainPathOnly) {
  EXPECT_THAT(LoadFlowErrors(R"({"chain": [5, "b"]})"),
              ElementsAre("chain[0]: must be an object (got a number)"));
}

TEST(Shorthand, Chain_StringStepWithBadPlaceholder_ReportedAtChainPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"chain": ["start {previous.output}", "b"]})"),
              ElementsAre("chain[0]: {previous.output} needs a dependency, but this phase has "
                          "none"));
}

TEST(Shorthand, Chain_ObjectStepWithBadPlaceholder_ReportedAtChainTaskPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"chain": ["a", {"task": "{item}"}]})"),
              ElementsAre("chain[1].task: {item} is only available inside a map phase's task"));
}

TEST(Shorthand, Chain_StepWithoutTask_ReportedAtChainPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"chain": ["a", {"agent": "x"}]})"),
              ElementsAre("chain[1].task: an agent phase needs a task"));
}

// ---------------------------------------------------------------------------
// Precedence and empty arrays

TEST(Shorthand, Precedence_ChainOverTasksOverTask) {
  v1::FlowSpec chain = LoadValidFlow(R"({"chain": ["c1"], "tasks": ["t1"], "task": "single"})");
  EXPECT_EQ(chain.name(), "chain");
  EXPECT_EQ(chain.taskflow().phases(0).id(), "step1");

  v1::FlowSpec tasks = LoadValidFlow(R"({"tasks": ["t1"], "task": "single"})");
  EXPECT_EQ(tasks.name(), "parallel");
  EXPECT_EQ(tasks.taskflow().phases(0).id(), "parallel");
}

TEST(Shorthand, EmptyArrays_DoNotCount) {
  v1::FlowSpec spec = LoadValidFlow(R"({"chain": [], "tasks": [], "task": "x"})");
  EXPECT_EQ(spec.name(), "task");
  ASSERT_EQ(spec.taskflow().phases_size(), 1);
  EXPECT_EQ(spec.taskflow().phases(0).id(), "main");
}

TEST(Shorthand, OnlyEmptyArrays_ReportsNoPhasesOnce) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "chain": [], "tasks": []})"),
              ElementsAre(HasSubstr("phases: flow has no phases")));
}

// ---------------------------------------------------------------------------
// DesugarShorthand and OriginalPath directly

TEST(Shorthand, Desugar_DocumentWithPhases_ReturnedUnchanged) {
  const Json doc = Json::parse(R"({"name": "f", "phases": [{"id": "a", "task": "x"}]})");
  DesugaredFlow out = DesugarShorthand(doc);
  EXPECT_EQ(out.doc, doc);
  EXPECT_THAT(out.path_aliases, IsEmpty());
}

TEST(Shorthand, Desugar_NotAnObject_ReturnedUnchanged) {
  const Json doc = Json::array({1, 2});
  EXPECT_EQ(DesugarShorthand(doc).doc, doc);
}

TEST(Shorthand, Desugar_Chain_ConsumesShorthandKeys) {
  DesugaredFlow out =
      DesugarShorthand(Json::parse(R"({"chain": ["a"], "task": "t", "agent": "s"})"));
  EXPECT_FALSE(out.doc.contains("chain"));
  EXPECT_FALSE(out.doc.contains("task"));
  EXPECT_FALSE(out.doc.contains("agent"));
  EXPECT_EQ(out.doc["phases"][0]["agent"], "s");
}

TEST(Shorthand, HasShorthand_TrueExactlyWhenDesugaringChangesTheDocument) {
  for (const char* text : {
           R"({"name": "f", "phases": [{"id": "a", "task": "x"}]})",
           R"({"name": "b", "kind": "board", "board": {"tasks": [{"id": "t", "task": "x"}]}})",
           R"({"name": "f", "phases": [], "agent": "s"})",
           R"([1, 2])",
           R"({"chain": ["a"]})",
           R"({"name": "b", "kind": "board", "board": {"tasks": []}, "agent": "s"})",
           R"({"chain": [], "tasks": []})",
           R"({"task": ""})",
       }) {
    const Json doc = Json::parse(text);
    EXPECT_EQ(HasShorthand(doc), DesugarShorthand(doc).doc != doc) << text;
  }
}

TEST(Shorthand, OriginalPath_LongestPrefixAtSegmentBoundary) {
  const std::vector<std::pair<std::string, std::string>> aliases = {
      {"phases[1]", "chain[1]"}, {"phases[1].task", "chain[1]"}, {"phases[0]", ""}};
  EXPECT_EQ(OriginalPath("phases[1].foo", aliases), "chain[1].foo");
  EXPECT_EQ(OriginalPath("phases[1].task", aliases), "chain[1]");
  EXPECT_EQ(OriginalPath("phases[10].id", aliases), "phases[10].id");
  EXPECT_EQ(OriginalPath("phases[0].agent", aliases), "agent");
  EXPECT_EQ(OriginalPath("name", aliases), "name");
}

}  // namespace
}  // namespace taskboard::flow
