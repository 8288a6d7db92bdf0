// The flow-level LLM options `budget`, `onBudget` and `priority`
// (docs/flow-dsl.md §2.1): decoded for every kind and shorthand, checked with
// path-qualified errors, validated when sent as protos, and encoded back.

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_loader.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::FlowErrorLines;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::LoadFlowErrors;
using ::taskboard::testing::LoadValidFlow;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

constexpr absl::string_view kOptions =
    R"("budget": {"tokens": 2000000, "usd": 5}, "onBudget": "fail", "priority": 10)";

// A one-phase taskflow named `f` with extra top-level JSON members.
std::string Taskflow(absl::string_view members) {
  return absl::StrCat(R"({"name": "f", "phases": [{"id": "a", "task": "x"}], )", members, "}");
}

void ExpectOptions(const v1::FlowSpec& spec) {
  ASSERT_TRUE(spec.has_budget());
  EXPECT_EQ(spec.budget().tokens(), 2000000);
  EXPECT_EQ(spec.budget().usd(), 5.0);
  EXPECT_EQ(spec.on_budget(), v1::ON_BUDGET_FAIL);
  EXPECT_EQ(spec.priority(), 10);
}

// Encoding `text`'s flow and decoding the result gives the same spec.
void ExpectRoundTrip(absl::string_view text) {
  const v1::FlowSpec spec = LoadValidFlow(text);
  const Json encoded = EncodeFlow(spec);
  absl::StatusOr<v1::FlowSpec> again = LoadFlowJson(encoded);
  ASSERT_THAT(again.status(), IsOk()) << encoded.dump(2);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(spec, *again)) << encoded.dump(2);
}

// ---------------------------------------------------------------------------
// Decoding

TEST(FlowBudget, AllThree_Decoded) { ExpectOptions(LoadValidFlow(Taskflow(kOptions))); }

TEST(FlowBudget, DocumentedYaml_Decoded) {
  const v1::FlowSpec spec = LoadValidFlow(R"(name: f
budget: {tokens: 2000000, usd: 5}   # either or both; 0 or absent: no limit
onBudget: pause                      # pause (default) | fail
priority: -10
phases:
  - {id: a, task: x}
)");
  EXPECT_EQ(spec.budget().tokens(), 2000000);
  EXPECT_EQ(spec.budget().usd(), 5.0);
  EXPECT_EQ(spec.on_budget(), v1::ON_BUDGET_PAUSE);
  EXPECT_EQ(spec.priority(), -10);
}

TEST(FlowBudget, EveryKind_AcceptsThem) {
  for (const std::string& kind_member :
       {std::string(R"("planAndExecute": {"goal": "g"})"),
        std::string(R"("supervisor": {"goal": "g"})"),
        std::string(R"("board": {"tasks": [{"id": "a", "task": "x"}]})")}) {
    SCOPED_TRACE(kind_member);
    ExpectOptions(
        LoadValidFlow(absl::StrCat(R"({"name": "f", )", kind_member, ", ", kOptions, "}")));
  }
}

TEST(FlowBudget, ShorthandForms_KeepThem) {
  for (const std::string& shorthand :
       {std::string(R"("task": "x")"), std::string(R"("tasks": ["x", "y"])"),
        std::string(R"("chain": ["x", "y"])")}) {
    SCOPED_TRACE(shorthand);
    ExpectOptions(LoadValidFlow(absl::StrCat("{", shorthand, ", ", kOptions, "}")));
  }
}

TEST(FlowBudget, Absent_DefaultsToNoBudgetPauseAndPriorityZero) {
  const v1::FlowSpec spec = LoadValidFlow(Taskflow(R"("description": "d")"));
  EXPECT_FALSE(spec.has_budget());
  EXPECT_EQ(spec.on_budget(), v1::ON_BUDGET_UNSPECIFIED);  // read as pause
  EXPECT_EQ(spec.priority(), 0);
}

TEST(FlowBudget, Null_IsAbsent) {
  const v1::FlowSpec spec =
      LoadValidFlow(Taskflow(R"("budget": null, "onBudget": null, "priority": null)"));
  EXPECT_FALSE(spec.has_budget());
  EXPECT_EQ(spec.on_budget(), v1::ON_BUDGET_UNSPECIFIED);
  EXPECT_EQ(spec.priority(), 0);
}

TEST(FlowBudget, OneLimit_LeavesTheOtherUnlimited) {
  const v1::FlowSpec usd_only = LoadValidFlow(Taskflow(R"("budget": {"usd": 0.25})"));
  EXPECT_EQ(usd_only.budget().usd(), 0.25);
  EXPECT_EQ(usd_only.budget().tokens(), 0);
  const v1::FlowSpec tokens_only = LoadValidFlow(Taskflow(R"("budget": {"tokens": 1000})"));
  EXPECT_EQ(tokens_only.budget().tokens(), 1000);
  EXPECT_EQ(tokens_only.budget().usd(), 0.0);
}

TEST(FlowBudget, ZeroesAndRangeEnds_Accepted) {
  const v1::FlowSpec zero =
      LoadValidFlow(Taskflow(R"("budget": {"tokens": 0, "usd": 0}, "priority": 1000)"));
  EXPECT_TRUE(zero.has_budget());
  EXPECT_EQ(zero.priority(), 1000);
  EXPECT_EQ(LoadValidFlow(Taskflow(R"("priority": -1000)")).priority(), -1000);
  // Integral floats are integers, as for every integer field.
  EXPECT_EQ(LoadValidFlow(Taskflow(R"("budget": {"tokens": 2e6})")).budget().tokens(), 2000000);
}

// ---------------------------------------------------------------------------
// Errors

TEST(FlowBudget, BudgetNotAnObject_ShowsTheShape) {
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("budget": 5)")),
              ElementsAre("budget: must be an object like {tokens: 2000000, usd: 5} (got a "
                          "number); either limit may be left out"));
}

TEST(FlowBudget, UnknownBudgetKey_Reported) {
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("budget": {"usd": 1, "dollars": 5})")),
              ElementsAre("budget.dollars: unknown field 'dollars'"));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("budget": {"token": 5})")),
              ElementsAre("budget.token: unknown field 'token'; did you mean 'tokens'?"));
}

TEST(FlowBudget, BadTokens_Reported) {
  const std::string range = "must be an integer from 0 to 9223372036854775807";
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("budget": {"tokens": -1})")),
              ElementsAre(absl::StrCat("budget.tokens: ", range, " (got -1)")));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("budget": {"tokens": 1.5})")),
              ElementsAre(absl::StrCat("budget.tokens: ", range, " (got 1.5)")));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("budget": {"tokens": "2M"})")),
              ElementsAre(absl::StrCat("budget.tokens: ", range, " (got a string)")));
}

TEST(FlowBudget, BadUsd_Reported) {
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("budget": {"usd": -5})")),
              ElementsAre("budget.usd: must be a finite number >= 0 (got -5)"));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("budget": {"usd": "$5"})")),
              ElementsAre("budget.usd: must be a finite number >= 0 (got a string)"));
}

TEST(FlowBudget, InfiniteUsdFromYaml_Reported) {
  // YAML reads 1e999 as infinity, which JSON cannot even write.
  EXPECT_THAT(LoadFlowErrors("name: f\nbudget: {usd: 1e999}\ntask: x\n"),
              ElementsAre("budget.usd: must be a finite number >= 0 (got inf)"));
}

TEST(FlowBudget, UnknownOnBudget_ListsTheChoices) {
  const std::string choices =
      "onBudget: must be pause (the default: the run waits for a higher budget) or fail (the "
      "task fails)";
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("onBudget": "stop")")),
              ElementsAre(absl::StrCat(choices, " (got \"stop\")")));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("onBudget": true)")),
              ElementsAre(absl::StrCat(choices, " (got true)")));
}

TEST(FlowBudget, PriorityOutOfRange_Reported) {
  const std::string range = "priority: must be an integer from -1000 to 1000";
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("priority": 1001)")),
              ElementsAre(absl::StrCat(range, " (got 1001)")));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("priority": -5000)")),
              ElementsAre(absl::StrCat(range, " (got -5000)")));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("priority": 1.5)")),
              ElementsAre(absl::StrCat(range, " (got 1.5)")));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("priority": "high")")),
              ElementsAre(absl::StrCat(range, " (got a string)")));
}

TEST(FlowBudget, MisspelledKeys_SuggestTheKnownOnes) {
  EXPECT_THAT(
      LoadFlowErrors(Taskflow(R"("budgets": {"usd": 1}, "on_budget": "fail", "priorty": 1)")),
      UnorderedElementsAre("budgets: unknown field 'budgets'; did you mean 'budget'?",
                           "on_budget: unknown field 'on_budget'; did you mean 'onBudget'?",
                           "priorty: unknown field 'priorty'; did you mean 'priority'?"));
}

TEST(FlowBudget, AllErrors_ReportedTogether) {
  EXPECT_THAT(
      LoadFlowErrors(R"({"task": "x", "budget": {"usd": -1, "tokens": -1, "x": 1},
                                 "onBudget": "stop", "priority": 2000})"),
      UnorderedElementsAre(
          "budget.tokens: must be an integer from 0 to 9223372036854775807 (got -1)",
          "budget.usd: must be a finite number >= 0 (got -1)", "budget.x: unknown field 'x'",
          "onBudget: must be pause (the default: the run waits for a higher budget) or "
          "fail (the task fails) (got \"stop\")",
          "priority: must be an integer from -1000 to 1000 (got 2000)"));
}

// ---------------------------------------------------------------------------
// Specs sent as protos skip the decoder; validation checks them.

v1::FlowSpec ProtoTaskflow() {
  v1::FlowSpec spec;
  spec.set_name("f");
  v1::Phase* phase = spec.mutable_taskflow()->add_phases();
  phase->set_id("a");
  phase->set_task("x");
  return spec;
}

TEST(FlowBudget, ValidProto_Accepted) {
  v1::FlowSpec spec = ProtoTaskflow();
  spec.mutable_budget()->set_tokens(10);
  spec.mutable_budget()->set_usd(0.5);
  spec.set_on_budget(v1::ON_BUDGET_PAUSE);
  spec.set_priority(-1000);
  EXPECT_THAT(CheckFlowSpec(spec), IsOk());
}

TEST(FlowBudget, ProtoOutOfRange_ReportedAtDslPaths) {
  v1::FlowSpec spec = ProtoTaskflow();
  spec.mutable_budget()->set_tokens(-1);
  spec.mutable_budget()->set_usd(-2);
  spec.set_on_budget(static_cast<v1::OnBudget>(7));
  spec.set_priority(1001);
  EXPECT_THAT(FlowErrorLines(CheckFlowSpec(spec)),
              ElementsAre("budget.tokens: must be an integer >= 0 (got -1); 0 is no limit",
                          "budget.usd: must be a finite number >= 0 (got -2); 0 is no limit",
                          "onBudget: unknown value 7; use pause or fail",
                          "priority: must be an integer from -1000 to 1000 (got 1001)"));
}

TEST(FlowBudget, ProtoNotFiniteUsd_Reported) {
  for (double usd :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    v1::FlowSpec spec = ProtoTaskflow();
    spec.mutable_budget()->set_usd(usd);
    EXPECT_THAT(FlowErrorLines(CheckFlowSpec(spec)),
                ElementsAre(absl::StrCat("budget.usd: must be a finite number >= 0 (got ", usd,
                                         "); 0 is no limit")));
  }
}

// ---------------------------------------------------------------------------
// Encoding

TEST(FlowBudget, Encoded_AsWritten) {
  const Json encoded = EncodeFlow(LoadValidFlow(Taskflow(kOptions)));
  EXPECT_EQ(encoded["budget"], Json::parse(R"({"tokens": 2000000, "usd": 5.0})"));
  EXPECT_EQ(encoded["onBudget"], "fail");
  EXPECT_EQ(encoded["priority"], 10);
}

TEST(FlowBudget, Unset_NothingEncoded) {
  const Json encoded = EncodeFlow(LoadValidFlow(Taskflow(R"("description": "d")")));
  EXPECT_FALSE(encoded.contains("budget")) << encoded.dump();
  EXPECT_FALSE(encoded.contains("onBudget")) << encoded.dump();
  EXPECT_FALSE(encoded.contains("priority")) << encoded.dump();
}

TEST(FlowBudget, EveryKind_RoundTrips) {
  ExpectRoundTrip(Taskflow(kOptions));
  ExpectRoundTrip(
      absl::StrCat(R"({"name": "f", "planAndExecute": {"goal": "g"}, )", kOptions, "}"));
  ExpectRoundTrip(absl::StrCat(R"({"name": "f", "supervisor": {"goal": "g"}, )", kOptions, "}"));
  ExpectRoundTrip(absl::StrCat(R"({"name": "f", "board": {"tasks": [{"id": "a", "task": "x",
      "priority": 3}]}, )",
                               kOptions, "}"));
}

TEST(FlowBudget, PartialAndEmptyBudgets_RoundTrip) {
  ExpectRoundTrip(Taskflow(R"("budget": {"usd": 0.125}, "onBudget": "pause")"));
  ExpectRoundTrip(Taskflow(R"("budget": {"tokens": 1}, "priority": -7)"));
  ExpectRoundTrip(Taskflow(R"("budget": {})"));  // set, without a limit
}

}  // namespace
}  // namespace taskboard::flow
