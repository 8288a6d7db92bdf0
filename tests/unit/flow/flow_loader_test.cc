#include "scheduler/flow/flow_loader.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
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
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

// A taskflow named `f` with the given JSON phases array.
std::string WithPhases(absl::string_view phases_json) {
  return absl::StrCat(R"({"name": "f", "phases": )", phases_json, "}");
}

// ---------------------------------------------------------------------------
// The document and its name

TEST(FlowLoader, Validate_RootNotAnObject_ReportsOnlyThat) {
  EXPECT_THAT(LoadFlowErrors(R"([{"id": "a", "task": "x"}])"),
              ElementsAre("a flow must be a JSON/YAML object (got an array)"));
  EXPECT_THAT(LoadFlowErrors(R"("just a string")"),
              ElementsAre("a flow must be a JSON/YAML object (got a string)"));
  EXPECT_THAT(LoadFlowErrors("42"),
              ElementsAre("a flow must be a JSON/YAML object (got a number)"));
}

TEST(FlowLoader, Validate_RootNotAnObject_StatusMessageListsTheError) {
  EXPECT_THAT(
      LoadFlowText("[1, 2]"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("flow is invalid (1 error):\n  a flow must be a JSON/YAML object")));
}

TEST(FlowLoader, Validate_MissingName_ReportsName) {
  EXPECT_THAT(LoadFlowErrors(R"({"phases": [{"id": "a", "task": "x"}]})"),
              ElementsAre("name: missing flow name"));
}

TEST(FlowLoader, Version_PiTaskflowNumber_Accepted) {
  LoadValidFlow(R"({"name": "f", "version": 1, "phases": [{"id": "a", "task": "x"}]})");
  LoadValidFlow("name: f\nversion: 2.5\ntask: x\n");  // shorthand, YAML
}

TEST(FlowLoader, Version_NotANumber_ReportedAtItsPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "version": "1.0", "phases": [{"id": "a",
      "task": "x"}]})"),
              ElementsAre("version: must be a number, like pi-taskflow's `version: 1` (got a "
                          "string); it is informational: remove it or write a number"));
}

TEST(FlowLoader, Validate_RequiredFieldOfWrongType_ReportedOnce) {
  EXPECT_THAT(LoadFlowErrors(
                  R"({"name": "f", "phases": [{"id": 5, "task": "x"}, {"id": "b", "task": 7}]})"),
              ElementsAre("phases[0].id: must be a string (got a number)",
                          "phases[1].task: must be a string (got a number)"));
}

TEST(FlowLoader, Validate_PlainItemInMapWithAsName_Reported) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "phases": [
      {"id": "d", "task": "list", "output": "json"},
      {"id": "m", "type": "map", "over": "{steps.d.json}", "as": "file",
       "task": "Read {file.path} then {item.path}", "dependsOn": ["d"]}]})"),
              ElementsAre("phases[1].task: {item.path} does not name this map's item; it is "
                          "called 'file' (set by `as`)"));
}

TEST(FlowLoader, SyntaxError_CarriesStructuredError) {
  absl::Status status = LoadFlowText("{\"name\": ", DslFormat::kJson).status();
  EXPECT_THAT(FlowErrorLines(status), ElementsAre(HasSubstr("invalid JSON at line 1")));
}

TEST(FlowLoader, Validate_InvalidName_ReportsName) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "my flow!", "phases": [{"id": "a", "task": "x"}]})"),
              ElementsAre(AllOf(HasSubstr("name: flow name 'my flow!' must start with a letter"),
                                HasSubstr("letters, digits, '_', '-' and '.'"))));
}

TEST(FlowLoader, Validate_MissingPhases_ReportsOnlyNoPhases) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f"})"),
              ElementsAre(AllOf(HasSubstr("phases: flow has no phases"),
                                HasSubstr("`task`, `tasks` or `chain` shorthand"))));
}

TEST(FlowLoader, Validate_EmptyPhases_ReportsOnlyNoPhases) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "phases": [], "concurrency": 2})"),
              ElementsAre(HasSubstr("phases: flow has no phases")));
}

TEST(FlowLoader, Validate_PhasesNotAnArray_ReportsOnlyThat) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "phases": {"id": "a", "task": "x"}})"),
              ElementsAre("phases: must be an array of phases (got an object)"));
}

// ---------------------------------------------------------------------------
// Per phase

TEST(FlowLoader, Validate_NullPhase_ReportsOnlyThePhase) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x"}, null])")),
              ElementsAre("phases[1]: must be an object (got null)"));
}

TEST(FlowLoader, Validate_NullPhaseAmongOthers_OtherPhasesStillChecked) {
  EXPECT_THAT(
      LoadFlowErrors(WithPhases(R"([null, {"id": "b", "task": "x", "dependsOn": ["zz"]}])")),
      ElementsAre("phases[0]: must be an object (got null)",
                  "phases[1].dependsOn[0]: unknown phase 'zz'"));
}

TEST(FlowLoader, Validate_MissingPhaseId_ReportsId) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"task": "x"}])")),
              ElementsAre("phases[0].id: missing phase id"));
}

TEST(FlowLoader, Validate_PhaseIdWithSpaces_ReportsId) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a b", "task": "x"}])")),
              ElementsAre(HasSubstr("phases[0].id: phase id 'a b' may only contain letters")));
}

TEST(FlowLoader, Validate_DuplicatePhaseId_ReportsBothPositions) {
  EXPECT_THAT(
      LoadFlowErrors(WithPhases(
          R"([{"id": "a", "task": "x"}, {"id": "b", "task": "y"}, {"id": "a", "task": "z"}])")),
      ElementsAre("phases[2].id: duplicate phase id 'a' (first used at phases[0])"));
}

TEST(FlowLoader, Validate_UnknownPhaseType_ListsAllowedTypes) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "type": "loop", "task": "x"}])")),
              ElementsAre("phases[0].type: unknown phase type 'loop'; use one of agent, "
                          "parallel, map, gate, reduce, plan, supervise, approval"));
}

TEST(FlowLoader, Validate_PhasesWithoutTask_ReportTaskPerType) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a"},
        {"id": "g", "type": "gate", "task": ""},
        {"id": "r", "type": "reduce", "from": ["a"]},
        {"id": "m", "type": "map", "over": "[1, 2]"}])")),
              ElementsAre("phases[0].task: an agent phase needs a task",
                          "phases[1].task: a gate phase needs a task",
                          "phases[2].task: a reduce phase needs a task",
                          "phases[3].task: a map phase needs a task"));
}

TEST(FlowLoader, Validate_MapWithoutOver_ReportsOver) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "m", "type": "map", "task": "do {item}"}])")),
              ElementsAre("phases[0].over: a map phase needs `over` (e.g. "
                          "\"{steps.discover.json}\")"));
}

TEST(FlowLoader, Validate_ParallelWithoutBranches_ReportsBranches) {
  const std::string message =
      "a parallel phase needs a non-empty `branches` array of {task, agent?}";
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "p", "type": "parallel"}])")),
              ElementsAre(absl::StrCat("phases[0].branches: ", message)));
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "p", "type": "parallel", "branches": []}])")),
              ElementsAre(absl::StrCat("phases[0].branches: ", message)));
}

TEST(FlowLoader, Validate_BranchWithoutTask_ReportsBranchTask) {
  EXPECT_THAT(
      LoadFlowErrors(WithPhases(
          R"([{"id": "p", "type": "parallel", "branches": [{"task": "x"}, {"agent": "scout"}]}])")),
      ElementsAre("phases[0].branches[1].task: a branch needs a task"));
}

TEST(FlowLoader, Validate_NullBranch_ReportsOnlyTheBranch) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(
                  R"([{"id": "p", "type": "parallel", "branches": [{"task": "x"}, null]}])")),
              ElementsAre("phases[0].branches[1]: must be an object (got null)"));
}

TEST(FlowLoader, Validate_ReduceWithoutFrom_ReportsFrom) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "r", "type": "reduce", "task": "combine"}])")),
              ElementsAre("phases[0].from: a reduce phase needs a non-empty `from` list of the "
                          "phases it combines"));
  EXPECT_THAT(
      LoadFlowErrors(WithPhases(R"([{"id": "r", "type": "reduce", "task": "x", "from": []}])")),
      ElementsAre(HasSubstr("phases[0].from: a reduce phase needs a non-empty `from`")));
}

TEST(FlowLoader, Validate_OverAndAsOnNonMapPhase_ReportsBoth) {
  EXPECT_THAT(
      LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x", "over": "[1]", "as": "file"}])")),
      ElementsAre("phases[0].over: `over` only applies to map phases",
                  "phases[0].as: `as` only applies to map phases"));
}

TEST(FlowLoader, Validate_UnknownPhaseField_SuggestsDependsOn) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x"},
                                   {"id": "b", "task": "y", "dependson": ["a"]}])")),
              ElementsAre("phases[1].dependson: unknown field 'dependson'; did you mean "
                          "'dependsOn'?"));
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x"},
                                   {"id": "b", "task": "y", "depends_on": ["a"]}])")),
              ElementsAre("phases[1].depends_on: unknown field 'depends_on'; did you mean "
                          "'dependsOn'?"));
}

TEST(FlowLoader, Validate_MisspelledFlowField_SuggestsClosestField) {
  EXPECT_THAT(
      LoadFlowErrors(R"({"name": "f", "concurency": 2, "phases": [{"id": "a", "task": "x"}]})"),
      ElementsAre("concurency: unknown field 'concurency'; did you mean 'concurrency'?"));
}

TEST(FlowLoader, Validate_UnrelatedUnknownField_NoSuggestion) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x", "zzzzzzzz": 1}])")),
              ElementsAre("phases[0].zzzzzzzz: unknown field 'zzzzzzzz'"));
}

TEST(FlowLoader, Validate_DependsOnNotAnArray_ReportsType) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x"},
                                   {"id": "b", "task": "y", "dependsOn": "a"}])")),
              ElementsAre("phases[1].dependsOn: must be an array of strings (got a string)"));
}

TEST(FlowLoader, Validate_DependsOnNonStringElement_ReportsElement) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x"},
                                   {"id": "b", "task": "y", "dependsOn": ["a", 7]}])")),
              ElementsAre("phases[1].dependsOn[1]: must be a string (got a number)"));
}

TEST(FlowLoader, Validate_ConcurrencyOutOfRangeOrFractional_ReportsValue) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x", "concurrency": 0}])")),
              ElementsAre("phases[0].concurrency: must be an integer from 1 to 10000 (got 0)"));
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x", "concurrency": 1.5}])")),
              ElementsAre("phases[0].concurrency: must be an integer from 1 to 10000 (got 1.5)"));
  EXPECT_THAT(
      LoadFlowErrors(R"({"name": "f", "concurrency": "8", "phases": [{"id": "a", "task": "x"}]})"),
      ElementsAre("concurrency: must be an integer from 1 to 10000 (got a string)"));
}

TEST(FlowLoader, Validate_FinalNotABoolean_ReportsType) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x", "final": "yes"}])")),
              ElementsAre("phases[0].final: must be true or false (got a string)"));
}

TEST(FlowLoader, Validate_UnknownOutputFormat_ReportsOutput) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x", "output": "yaml"}])")),
              ElementsAre("phases[0].output: must be \"text\" or \"json\" (got \"yaml\")"));
}

// ---------------------------------------------------------------------------
// Dependencies, cycles and the final phase

TEST(FlowLoader, Validate_UnknownDependsOnAndFrom_ReportIndexPaths) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a", "task": "x"},
        {"id": "b", "task": "y", "dependsOn": ["a", "ghost"]},
        {"id": "r", "type": "reduce", "task": "z", "from": ["b", "phantom"]}])")),
              ElementsAre("phases[1].dependsOn[1]: unknown phase 'ghost'",
                          "phases[2].from[1]: unknown phase 'phantom'"));
}

TEST(FlowLoader, Validate_DependencyCycle_ReportedAsPath) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a", "task": "x", "dependsOn": ["c"]},
        {"id": "b", "task": "y", "dependsOn": ["a"]},
        {"id": "c", "task": "z", "dependsOn": ["b"]}])")),
              ElementsAre("phases[0].dependsOn: dependency cycle: a -> c -> b -> a"));
}

TEST(FlowLoader, Validate_CycleThroughFrom_ReportedAsPath) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a", "task": "x", "dependsOn": ["r"]},
        {"id": "r", "type": "reduce", "task": "y", "from": ["a"]}])")),
              ElementsAre("phases[0].dependsOn: dependency cycle: a -> r -> a"));
}

TEST(FlowLoader, Validate_SelfDependency_ReportedAsCycle) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "x", "dependsOn": ["a"]}])")),
              ElementsAre("phases[0].dependsOn: dependency cycle: a -> a"));
}

TEST(FlowLoader, Validate_CycleWithOtherErrors_StillReportsCycle) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a", "task": "x", "dependsOn": ["b"], "bogus": 1},
        {"id": "b", "dependsOn": ["a"]}])")),
              UnorderedElementsAre("phases[0].bogus: unknown field 'bogus'",
                                   "phases[1].task: an agent phase needs a task",
                                   "phases[0].dependsOn: dependency cycle: a -> b -> a"));
}

TEST(FlowLoader, Validate_TwoFinalPhases_NamesBoth) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a", "task": "x", "final": true},
        {"id": "b", "task": "y"},
        {"id": "c", "task": "z", "final": true}])")),
              ElementsAre("phases[2].final: more than one final phase ('a', 'c'); mark exactly "
                          "one, or none to use the last phase"));
}

TEST(FlowLoader, Load_NoFinalPhase_LastPhaseIsFinal) {
  v1::FlowSpec spec = LoadValidFlow(WithPhases(R"([
        {"id": "a", "task": "x"},
        {"id": "b", "task": "y", "dependsOn": ["a"]},
        {"id": "c", "task": "z"}])"));
  EXPECT_EQ(FinalPhaseId(spec.taskflow()), "c");
}

TEST(FlowLoader, Load_MarkedFinalPhase_IsFinalEvenIfNotLast) {
  v1::FlowSpec spec = LoadValidFlow(WithPhases(R"([
        {"id": "a", "task": "x", "final": true},
        {"id": "b", "task": "y"}])"));
  EXPECT_EQ(FinalPhaseId(spec.taskflow()), "a");
}

// The acceptance example of the issue (examples/flows/broken.json): one
// submission, every problem at once, each with its path.
TEST(FlowLoader, Validate_BrokenFlow_ReportsEveryErrorWithItsPath) {
  EXPECT_THAT(
      LoadFlowErrors(R"({"name": "broken", "phases": [
        {"id": "a", "agent": "scout", "task": "Step a: read the inputs.", "dependsOn": ["c"]},
        {"id": "b", "agent": "summarizer", "task": "Step b: summarize {steps.a.output}",
         "dependsOn": ["a"], "final": true},
        {"id": "c", "agent": "reviewer", "task": "Step c: review {steps.b.output}",
         "dependsOn": ["b"]},
        {"id": "fanout", "type": "map", "agent": "summarizer",
         "task": "Summarize {item.file} in one sentence.", "dependsOn": ["colect"]},
        {"id": "report", "type": "reduce", "agent": "writer", "from": ["fanout"],
         "task": "Combine:\n{steps.fanout.output}", "final": true}]})"),
      UnorderedElementsAre(
          "phases[0].dependsOn: dependency cycle: a -> c -> b -> a",
          "phases[3].dependsOn[0]: unknown phase 'colect'",
          "phases[4].final: more than one final phase ('b', 'report'); mark exactly one, or none "
          "to use the last phase",
          "phases[3].over: a map phase needs `over` (e.g. \"{steps.discover.json}\")"));
}

TEST(FlowLoader, Validate_CycleAndOtherErrors_AllReported) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a", "task": "x", "dependsOn": ["c"]},
        {"id": "b", "task": "y", "dependsOn": ["a", "ghost"], "final": true},
        {"id": "c", "task": "z", "dependsOn": ["b"], "final": true},
        {"id": "m", "type": "map", "task": "each {item}"}])")),
              UnorderedElementsAre(
                  "phases[1].dependsOn[1]: unknown phase 'ghost'",
                  "phases[3].over: a map phase needs `over` (e.g. \"{steps.discover.json}\")",
                  "phases[2].final: more than one final phase ('b', 'c'); mark exactly one, or "
                  "none to use the last phase",
                  "phases[0].dependsOn: dependency cycle: a -> c -> b -> a"));
}

TEST(FlowLoader, Validate_BrokenFlow_StatusMessageCountsErrors) {
  absl::StatusOr<v1::FlowSpec> spec = LoadFlowText(WithPhases(R"([
        {"id": "a", "task": "x", "dependsOn": ["a"]},
        {"id": "b", "task": "y", "dependsOn": ["ghost"]}])"));
  EXPECT_THAT(spec,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("flow is invalid (2 errors):"),
                             HasSubstr("\n  phases[1].dependsOn[0]: unknown phase 'ghost'"),
                             HasSubstr("\n  phases[0].dependsOn: dependency cycle: a -> a"))));
}

// ---------------------------------------------------------------------------
// Args declared by the flow

TEST(FlowLoader, Load_Args_KeepDeclarationOrderAndDefaults) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "f",
      "args": {"zeta": {"default": 3, "description": "how many"}, "alpha": {"required": true}},
      "phases": [{"id": "a", "task": "{args.zeta} {args.alpha}"}]})");
  ASSERT_EQ(spec.args_size(), 2);
  EXPECT_EQ(spec.args(0).name(), "zeta");
  EXPECT_EQ(spec.args(0).default_value().number_value(), 3);
  EXPECT_EQ(spec.args(0).description(), "how many");
  EXPECT_EQ(spec.args(1).name(), "alpha");
  EXPECT_TRUE(spec.args(1).required());
  EXPECT_FALSE(spec.args(1).has_default_value());
}

TEST(FlowLoader, Validate_ArgsNotAnObject_ReportsArgs) {
  EXPECT_THAT(
      LoadFlowErrors(R"({"name": "f", "args": ["dir"], "phases": [{"id": "a", "task": "x"}]})"),
      ElementsAre("args: must be an object of arg name -> {default?, description?, "
                  "required?} (got an array)"));
}

TEST(FlowLoader, Validate_ArgWithUnknownField_SuggestsDefault) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "args": {"dir": {"defualt": "."}},
                         "phases": [{"id": "a", "task": "x"}]})"),
              ElementsAre("args.dir.defualt: unknown field 'defualt'; did you mean 'default'?"));
}

// ---------------------------------------------------------------------------
// Placeholders checked at validation

TEST(FlowLoader, Placeholders_UnknownStep_Reported) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "use {steps.nope.output}"}])")),
              ElementsAre("phases[0].task: {steps.nope.output} refers to unknown phase 'nope'"));
}

TEST(FlowLoader, Placeholders_StepNotUpstream_Reported) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a", "task": "x"},
        {"id": "b", "task": "use {steps.a.output}"}])")),
              ElementsAre("phases[1].task: {steps.a.output} refers to phase 'a', which is not "
                          "upstream of this phase; add it to its dependencies"));
}

TEST(FlowLoader, Placeholders_TransitiveUpstreamStep_Accepted) {
  v1::FlowSpec spec = LoadValidFlow(WithPhases(R"([
        {"id": "a", "task": "x", "output": "json"},
        {"id": "b", "task": "y", "dependsOn": ["a"]},
        {"id": "c", "task": "{steps.a.json.0.name} {steps.b.output}", "dependsOn": ["b"]}])"));
  EXPECT_EQ(spec.taskflow().phases_size(), 3);
}

TEST(FlowLoader, Placeholders_ItemOutsideMap_Reported) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "do {item.file}"}])")),
              ElementsAre("phases[0].task: {item.file} is only available inside a map phase's "
                          "task"));
}

TEST(FlowLoader, Placeholders_ItemInsideMap_Accepted) {
  v1::FlowSpec spec = LoadValidFlow(WithPhases(R"([
        {"id": "m", "type": "map", "over": "[{\"x\": 1}]", "task": "do {item.x} and {item}"}])"));
  EXPECT_EQ(spec.taskflow().phases(0).over(), R"([{"x": 1}])");
}

TEST(FlowLoader, Placeholders_CustomItemName_AcceptedInsideMap) {
  v1::FlowSpec spec = LoadValidFlow(WithPhases(R"([
        {"id": "d", "task": "list", "output": "json"},
        {"id": "m", "type": "map", "over": "{steps.d.json}", "as": "file",
         "task": "read {file.path}", "dependsOn": ["d"]}])"));
  EXPECT_EQ(spec.taskflow().phases(1).item_var(), "file");
}

TEST(FlowLoader, Placeholders_UndeclaredArg_ListsDeclaredArgs) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "args": {"dir": {}, "depth": {}},
                         "phases": [{"id": "a", "task": "{args.dri}"}]})"),
              ElementsAre("phases[0].task: {args.dri} refers to undeclared arg 'dri' "
                          "(declared: depth, dir)"));
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "{args.dir}"}])")),
              ElementsAre("phases[0].task: {args.dir} refers to undeclared arg 'dir'; declare "
                          "it under `args`"));
}

TEST(FlowLoader, Placeholders_PreviousOutputWithoutDeps_Reported) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "a", "task": "continue {previous.output}"}])")),
              ElementsAre("phases[0].task: {previous.output} needs a dependency, but this phase "
                          "has none"));
}

TEST(FlowLoader, Placeholders_PreviousOutputWithFromOnly_Accepted) {
  LoadValidFlow(WithPhases(R"([
        {"id": "a", "task": "x"},
        {"id": "r", "type": "reduce", "from": ["a"], "task": "sum {previous.output}"}])"));
}

TEST(FlowLoader, Placeholders_StepWithoutOutputOrJson_Reported) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "a", "task": "x"},
        {"id": "b", "task": "{steps.a}", "dependsOn": ["a"]}])")),
              ElementsAre("phases[1].task: {steps.a} is not a step placeholder; use "
                          "{steps.ID.output}, {steps.ID.json[.path]} or, for an approval, "
                          "{steps.ID.output.FIELD}"));
}

TEST(FlowLoader, Placeholders_OtherBracedWordsAndJson_LeftAlone) {
  v1::FlowSpec spec = LoadValidFlow(WithPhases(
      R"([{"id": "a", "task": "fill {some_other} and print {\"a\": 1} or { x } or {}"}])"));
  EXPECT_THAT(spec.taskflow().phases(0).task(), HasSubstr("{some_other}"));
}

TEST(FlowLoader, Placeholders_InBranchTasks_Checked) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([{"id": "p", "type": "parallel", "branches": [
        {"task": "ok {args}"}, {"task": "bad {steps.x.output}"}]}])")),
              ElementsAre("phases[0].branches[1].task: {steps.x.output} refers to unknown "
                          "phase 'x'"));
}

TEST(FlowLoader, Placeholders_InMapOver_Checked) {
  EXPECT_THAT(LoadFlowErrors(WithPhases(R"([
        {"id": "d", "task": "x"},
        {"id": "m", "type": "map", "over": "{steps.d.json}", "task": "t {item}"}])")),
              ElementsAre("phases[1].over: {steps.d.json} refers to phase 'd', which is not "
                          "upstream of this phase; add it to its dependencies"));
  // The item does not exist yet while `over` is resolved.
  EXPECT_THAT(
      LoadFlowErrors(WithPhases(R"([{"id": "m", "type": "map", "over": "{item}", "task": "t"}])")),
      ElementsAre("phases[0].over: {item} is only available inside a map phase's task"));
}

// ---------------------------------------------------------------------------
// Phase fields

TEST(FlowLoader, Load_AllPhaseFields_Decoded) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "f", "description": "d", "concurrency": 4,
      "maxAttemptsPerTask": 3, "timeoutSeconds": 600, "phases": [
      {"id": "a", "agent": "scout", "task": "x", "output": "json", "model": "m1",
       "thinking": "high", "tools": "read, grep", "cwd": "repo/src", "optional": true, "retries": 0,
       "timeoutSeconds": 30, "cacheable": {"read": false}},
      {"id": "p", "type": "parallel", "concurrency": 2, "dependsOn": ["a"], "tools": ["bash"],
       "branches": [{"task": "b1", "agent": "w"}, {"task": "b2"}], "cacheable": true}]})");
  EXPECT_EQ(spec.description(), "d");
  EXPECT_EQ(spec.max_attempts_per_task(), 3);
  EXPECT_EQ(spec.timeout_seconds(), 600);
  ASSERT_TRUE(spec.has_taskflow());
  EXPECT_EQ(spec.taskflow().concurrency(), 4);
  const v1::Phase& a = spec.taskflow().phases(0);
  EXPECT_EQ(a.type(), v1::PHASE_TYPE_AGENT);
  EXPECT_EQ(a.agent(), "scout");
  EXPECT_EQ(a.output(), v1::OUTPUT_FORMAT_JSON);
  EXPECT_EQ(a.model(), "m1");
  EXPECT_EQ(a.thinking(), "high");
  EXPECT_THAT(a.tools(), ElementsAre("read", "grep"));
  EXPECT_EQ(a.cwd(), "repo/src");
  EXPECT_TRUE(a.is_optional());
  EXPECT_TRUE(a.has_retries());
  EXPECT_EQ(a.retries(), 0);
  EXPECT_EQ(a.timeout_seconds(), 30);
  EXPECT_FALSE(a.cacheable().tools().at("read"));
  const v1::Phase& p = spec.taskflow().phases(1);
  EXPECT_EQ(p.type(), v1::PHASE_TYPE_PARALLEL);
  EXPECT_EQ(p.concurrency(), 2);
  EXPECT_THAT(p.depends_on(), ElementsAre("a"));
  EXPECT_THAT(p.tools(), ElementsAre("bash"));
  ASSERT_EQ(p.branches_size(), 2);
  EXPECT_EQ(p.branches(0).agent(), "w");
  EXPECT_EQ(p.branches(1).task(), "b2");
  EXPECT_TRUE(p.cacheable().all_tools());
}

TEST(FlowLoader, Load_LiteralOverArray_KeptAsJsonText) {
  v1::FlowSpec spec = LoadValidFlow(WithPhases(
      R"([{"id": "m", "type": "map", "over": [{"file": "a.cc"}, "b"], "task": "t {item}"}])"));
  EXPECT_EQ(spec.taskflow().phases(0).over(), R"([{"file":"a.cc"},"b"])");
}

// ---------------------------------------------------------------------------
// YAML

constexpr char kReviewJson[] = R"({
  "name": "review",
  "description": "Review a directory",
  "args": {"dir": {"default": ".", "required": false}, "depth": {"default": 2}},
  "concurrency": 4,
  "phases": [
    {"id": "scan", "agent": "scout", "task": "List files under {args.dir}", "output": "json"},
    {"id": "each", "type": "map", "over": "{steps.scan.json}", "as": "file",
     "task": "Review {file.path}", "dependsOn": ["scan"], "concurrency": 2},
    {"id": "gate", "type": "gate", "task": "Check {steps.each.output}", "dependsOn": ["each"],
     "final": true, "tools": ["read", "grep"], "optional": false}
  ]
})";

constexpr char kReviewYaml[] = R"(
# the same flow as kReviewJson
name: review
description: Review a directory
args:
  dir:
    default: "."
    required: false
  depth:
    default: 2
concurrency: 4
phases:
  - id: scan
    agent: scout
    task: "List files under {args.dir}"
    output: json
  - id: each
    type: map
    over: "{steps.scan.json}"
    as: file
    task: Review {file.path}
    dependsOn: [scan]
    concurrency: 2
  - id: gate
    type: gate
    task: "Check {steps.each.output}"
    dependsOn:
      - each
    final: true
    tools: [read, grep]
    optional: false
)";

TEST(FlowLoader, Yaml_SameFlowAsJson_GivesEqualSpecs) {
  v1::FlowSpec from_json = LoadValidFlow(kReviewJson);
  v1::FlowSpec from_yaml = LoadValidFlow(kReviewYaml);
  EXPECT_EQ(from_json.taskflow().phases_size(), 3);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(from_json, from_yaml))
      << "JSON: " << from_json.DebugString() << "\nYAML: " << from_yaml.DebugString();
}

TEST(FlowLoader, Yaml_ExplicitFormat_MatchesAutodetected) {
  absl::StatusOr<v1::FlowSpec> yaml = LoadFlowText(kReviewYaml, DslFormat::kYaml);
  absl::StatusOr<v1::FlowSpec> json = LoadFlowText(kReviewJson, DslFormat::kJson);
  ASSERT_THAT(yaml, IsOk());
  ASSERT_THAT(json, IsOk());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*json, *yaml));
}

TEST(FlowLoader, Yaml_QuotedTrue_StaysString) {
  v1::FlowSpec spec = LoadValidFlow(R"(
name: f
description: "true"
args:
  flag:
    default: "true"
phases:
  - id: a
    task: "true"
)");
  EXPECT_EQ(spec.description(), "true");
  EXPECT_EQ(spec.args(0).default_value().string_value(), "true");
  EXPECT_EQ(spec.taskflow().phases(0).task(), "true");
}

TEST(FlowLoader, Yaml_UnquotedTrueWhereStringExpected_ReportsType) {
  EXPECT_THAT(LoadFlowErrors("name: f\nphases:\n  - id: a\n    task: true\n"),
              Contains("phases[0].task: must be a string (got a boolean)"));
}

TEST(FlowLoader, Yaml_NullPhase_ReportedNotCrashed) {
  EXPECT_THAT(LoadFlowErrors("name: f\nphases:\n  - id: a\n    task: x\n  -\n"),
              ElementsAre("phases[1]: must be an object (got null)"));
}

TEST(FlowLoader, Yaml_SyntaxError_ReportsLine) {
  EXPECT_THAT(LoadFlowText("name: f\nphases:\n  - id: a\n    task: [unclosed\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid YAML at line 5")));
}

TEST(FlowLoader, Text_Empty_ReportsEmpty) {
  EXPECT_THAT(LoadFlowText("  \n\t"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("flow text is empty")));
}

TEST(FlowLoader, Json_SyntaxError_ReportsLineAndColumn) {
  EXPECT_THAT(LoadFlowText("{\n  \"name\": \"f\",\n  \"phases\": [}\n}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("invalid JSON at line 3, column 14: syntax error")));
}

// ---------------------------------------------------------------------------
// Other flow kinds

TEST(FlowLoader, PlanAndExecute_Block_Decoded) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "research", "flowPolicy": "recent_trajectory",
      "planAndExecute": {"goal": "Research {args.topic}", "plannerAgent": "planner",
        "executorAgent": "worker", "evaluator": "llm", "evaluatorAgent": "judge",
        "enableReplanning": true, "replannerAgent": "replanner", "maxIterations": 5,
        "maxConcurrency": 2, "synthesizerAgent": "writer",
        "executionInstructions": "be brief", "synthesizeInstructions": "cite"},
      "args": {"topic": {"required": true}}})");
  ASSERT_EQ(spec.kind_case(), v1::FlowSpec::kPlanAndExecute);
  const v1::PlanExecuteSpec& pe = spec.plan_and_execute();
  EXPECT_EQ(pe.goal(), "Research {args.topic}");
  EXPECT_EQ(pe.planner_agent(), "planner");
  EXPECT_EQ(pe.executor_agent(), "worker");
  EXPECT_EQ(pe.evaluator(), v1::EVALUATOR_KIND_LLM);
  EXPECT_EQ(pe.evaluator_agent(), "judge");
  EXPECT_TRUE(pe.enable_replanning());
  EXPECT_EQ(pe.replanner_agent(), "replanner");
  EXPECT_EQ(pe.max_iterations(), 5);
  EXPECT_EQ(pe.max_concurrency(), 2);
  EXPECT_EQ(pe.synthesizer_agent(), "writer");
  EXPECT_EQ(pe.execution_instructions(), "be brief");
  EXPECT_EQ(pe.synthesize_instructions(), "cite");
  EXPECT_FALSE(pe.has_step_executor());
  EXPECT_TRUE(spec.flow_policy().has_recent_trajectory());
}

TEST(FlowLoader, PlanAndExecute_OnlyAGoal_IsValid) {
  // Every agent it leaves out is the scheduler's default agent (default_agent.h).
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g"}})");
  EXPECT_EQ(spec.plan_and_execute().planner_agent(), "");
  EXPECT_EQ(spec.plan_and_execute().executor_agent(), "");
}

TEST(FlowLoader, PlanAndExecute_ReplanningWithDeterministicEvaluator_SaysToUseLlm) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "p", "planAndExecute": {"goal": "g",
      "enableReplanning": true, "evaluator": "deterministic"}})"),
              ElementsAre(AllOf(StartsWith("planAndExecute.evaluator: enableReplanning needs the "
                                           "llm evaluator (the deterministic one never replans)"),
                                HasSubstr("set `evaluator: llm`"))));
}

TEST(FlowLoader, PlanAndExecute_ReplanningWithoutEvaluator_IsValid) {
  v1::FlowSpec spec =
      LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g", "enableReplanning": true}})");
  EXPECT_TRUE(spec.plan_and_execute().enable_replanning());
}

TEST(FlowLoader, PlanAndExecute_ExecutorAgentAndStepExecutor_Rejected) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "p", "planAndExecute": {"goal": "g", "plannerAgent": "p",
      "executorAgent": "w", "stepExecutor": {"plannerAgent": "sp", "workerAgent": "sw",
      "reviewerAgent": "sr"}}})"),
              ElementsAre("planAndExecute.executorAgent: use either executorAgent or "
                          "stepExecutor, not both"));
}

TEST(FlowLoader, PlanAndExecute_NestedSupervisor_Decoded) {
  v1::FlowSpec spec =
      LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g", "plannerAgent": "p",
      "stepExecutor": {"plannerAgent": "sp", "workerAgent": "sw", "reviewerAgent": "sr",
        "reviewCriteria": ["accurate", "cited"], "maxIterations": 2, "onSubTaskError": "retry"}}})");
  ASSERT_TRUE(spec.plan_and_execute().has_step_executor());
  const v1::SupervisorSpec& nested = spec.plan_and_execute().step_executor();
  EXPECT_EQ(nested.planner_agent(), "sp");
  EXPECT_EQ(nested.worker_agent(), "sw");
  EXPECT_EQ(nested.reviewer_agent(), "sr");
  EXPECT_THAT(nested.review_criteria(), ElementsAre("accurate", "cited"));
  EXPECT_EQ(nested.max_iterations(), 2);
  EXPECT_EQ(nested.on_sub_task_error(), v1::SUB_TASK_ERROR_MODE_RETRY);
}

TEST(FlowLoader, Supervisor_OnlyAGoal_IsValid) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "s", "supervisor": {"goal": "g"}})");
  EXPECT_EQ(spec.supervisor().reviewer_agent(), "");
  LoadValidFlow(R"({"name": "p", "planAndExecute": {"goal": "g", "stepExecutor": {}}})");
}

TEST(FlowLoader, Supervisor_UnknownErrorMode_Reported) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "s", "supervisor": {"goal": "g", "plannerAgent": "p",
      "workerAgent": "w", "reviewerAgent": "r", "onSubTaskError": "ignore"}})"),
              ElementsAre("supervisor.onSubTaskError: must be skip, fail or retry (got "
                          "\"ignore\")"));
}

TEST(FlowLoader, Board_TasksWithDeps_Decoded) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "b", "board": {"concurrency": 3, "tasks": [
      {"id": "fetch", "task": "get", "agent": "w"},
      {"id": "parse", "task": "parse {steps.fetch.output}", "deps": ["fetch"], "priority": 5}]}})");
  ASSERT_EQ(spec.kind_case(), v1::FlowSpec::kBoard);
  EXPECT_EQ(spec.board().concurrency(), 3);
  ASSERT_EQ(spec.board().tasks_size(), 2);
  EXPECT_EQ(spec.board().tasks(0).agent(), "w");
  EXPECT_THAT(spec.board().tasks(1).deps(), ElementsAre("fetch"));
  EXPECT_EQ(spec.board().tasks(1).priority(), 5);
}

TEST(FlowLoader, Board_UnknownDep_Reported) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "b", "board": {"tasks": [
      {"id": "a", "task": "x"}, {"id": "b", "task": "y", "deps": ["a", "zz"]}]}})"),
              ElementsAre("board.tasks[1].deps[1]: unknown task 'zz'"));
}

TEST(FlowLoader, Board_Cycle_ReportedAsPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "b", "board": {"tasks": [
      {"id": "a", "task": "x", "deps": ["b"]}, {"id": "b", "task": "y", "deps": ["a"]}]}})"),
              ElementsAre("board.tasks[0].deps: dependency cycle: a -> b -> a"));
}

TEST(FlowLoader, Board_CycleAfterNullTask_PathNamesTheRightTask) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "b", "board": {"tasks": [null,
      {"id": "a", "task": "x", "deps": ["b"]}, {"id": "b", "task": "y", "deps": ["a"]}]}})"),
              ElementsAre("board.tasks[0]: must be an object (got null)",
                          "board.tasks[1].deps: dependency cycle: a -> b -> a"));
}

TEST(FlowLoader, Board_DuplicateId_ReportsBothPositions) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "b", "board": {"tasks": [
      {"id": "a", "task": "x"}, {"id": "a", "task": "y"}]}})"),
              ElementsAre("board.tasks[1].id: duplicate task id 'a' (first used at "
                          "board.tasks[0])"));
}

TEST(FlowLoader, Kind_MismatchedBlock_ReportsMissingBlockAndStrayOne) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "x", "kind": "board",
      "supervisor": {"goal": "g", "plannerAgent": "p", "workerAgent": "w", "reviewerAgent": "r"}})"),
              ElementsAre("board: kind board needs a `board` block",
                          "supervisor: unknown field 'supervisor'"));
}

TEST(FlowLoader, Kind_Unknown_ListsKinds) {
  EXPECT_THAT(
      LoadFlowErrors(R"({"name": "x", "kind": "dag", "phases": [{"id": "a", "task": "t"}]})"),
      ElementsAre("kind: unknown kind 'dag'; use one of taskflow, plan_and_execute, "
                  "supervisor, board"));
}

TEST(FlowLoader, Kind_ExplicitMatchingBlock_Accepted) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "x", "kind": "supervisor",
      "supervisor": {"goal": "g", "plannerAgent": "p", "workerAgent": "w", "reviewerAgent": "r"}})");
  EXPECT_EQ(spec.kind_case(), v1::FlowSpec::kSupervisor);
}

TEST(FlowLoader, Kind_TwoBlocks_ReportsOneKindOnly) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "x",
      "supervisor": {"goal": "g", "plannerAgent": "p", "workerAgent": "w", "reviewerAgent": "r"},
      "board": {"tasks": [{"id": "a", "task": "t"}]}})"),
              ElementsAre("a flow has one kind: use only one of `planAndExecute`, `supervisor`, "
                          "`board`"));
}

TEST(FlowLoader, Board_WithPhases_Rejected) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "x", "board": {"tasks": [{"id": "a", "task": "t"}]},
      "phases": [{"id": "a", "task": "t"}], "concurrency": 2})"),
              ElementsAre("phases: `phases` belongs to taskflow flows, not kind board",
                          "concurrency: `concurrency` belongs to taskflow flows, not kind board"));
}

// ---------------------------------------------------------------------------
// Flow options

TEST(FlowLoader, FlowPolicyAndToolCache_Decoded) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "f", "phases": [{"id": "a", "task": "x"}],
      "flowPolicy": {"type": "ancestors", "transitive": true},
      "toolCache": {"tools": {"read_file": {"ttlMs": 1000, "scope": "request"}}}})");
  EXPECT_TRUE(spec.flow_policy().ancestors().transitive());
  EXPECT_EQ(spec.tool_cache().tools().at("read_file").scope(), v1::CACHE_SCOPE_REQUEST);
}

TEST(FlowLoader, FlowPolicyUnknown_ReportedWithFlowPath) {
  EXPECT_THAT(LoadFlowErrors(
                  R"({"name": "f", "phases": [{"id": "a", "task": "x"}], "flowPolicy": "magic"})"),
              ElementsAre(HasSubstr("flowPolicy: unknown flow policy 'magic'; use one of none,")));
}

// ---------------------------------------------------------------------------
// pi-taskflow verbatim

TEST(FlowLoader, PiTaskflow_ReadmeExample_Loads) {
  v1::FlowSpec spec = LoadValidFlow(R"json({
    "name": "summarize-files",
    "description": "Discover files, summarize each, produce a report",
    "args": { "dir": { "default": "." } },
    "concurrency": 8,
    "phases": [
      { "id": "discover", "type": "agent", "agent": "scout",
        "task": "List source files under {args.dir} (non-recursive).\nOutput ONLY a JSON array [{\"file\":\"\"}]. No prose.",
        "output": "json" },
      { "id": "summarize", "type": "map",
        "over": "{steps.discover.json}", "as": "item",
        "agent": "scout",
        "task": "Read {item.file} and give a one-sentence summary.",
        "dependsOn": ["discover"] },
      { "id": "report", "type": "reduce", "from": ["summarize"],
        "agent": "writer",
        "task": "Combine into a short overview:\n{steps.summarize.output}",
        "dependsOn": ["summarize"], "final": true }
    ]
  })json");
  EXPECT_EQ(spec.name(), "summarize-files");
  ASSERT_EQ(spec.args_size(), 1);
  EXPECT_EQ(spec.args(0).default_value().string_value(), ".");
  ASSERT_EQ(spec.taskflow().phases_size(), 3);
  EXPECT_EQ(spec.taskflow().phases(1).type(), v1::PHASE_TYPE_MAP);
  EXPECT_EQ(spec.taskflow().phases(1).over(), "{steps.discover.json}");
  EXPECT_EQ(spec.taskflow().phases(2).type(), v1::PHASE_TYPE_REDUCE);
  EXPECT_THAT(spec.taskflow().phases(2).from_phases(), ElementsAre("summarize"));
  EXPECT_EQ(FinalPhaseId(spec.taskflow()), "report");
  EXPECT_THAT(
      PhaseLayers(spec.taskflow()),
      ElementsAre(ElementsAre("discover"), ElementsAre("summarize"), ElementsAre("report")));
}

TEST(FlowLoader, PiTaskflow_AgentScope_Accepted) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "ci-audit", "agentScope": "both",
                               "phases": [{"id": "a", "task": "x"}]})");
  EXPECT_EQ(spec.name(), "ci-audit");
}

// ---------------------------------------------------------------------------
// Specs submitted as protos

TEST(FlowLoader, CheckFlowSpec_ProtoWithCycle_ReportsDslPaths) {
  v1::FlowSpec spec;
  spec.set_name("f");
  v1::Phase* a = spec.mutable_taskflow()->add_phases();
  a->set_id("a");
  a->set_task("x");
  a->add_depends_on("a");
  EXPECT_THAT(FlowErrorLines(CheckFlowSpec(spec)),
              ElementsAre("phases[0].dependsOn: dependency cycle: a -> a"));
}

TEST(FlowLoader, CheckFlowSpec_ValidLoadedSpec_IsOk) {
  EXPECT_THAT(CheckFlowSpec(LoadValidFlow(kReviewJson)), IsOk());
}

TEST(FlowLoader, CheckFlowSpec_NoKind_Reported) {
  v1::FlowSpec spec;
  spec.set_name("f");
  EXPECT_THAT(FlowErrorLines(CheckFlowSpec(spec)),
              ElementsAre("flow has no kind: set taskflow, plan_and_execute, supervisor or board"));
}

}  // namespace
}  // namespace taskboard::flow
