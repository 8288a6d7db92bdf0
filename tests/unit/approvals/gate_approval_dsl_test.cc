// Gates a person decides (`approval:` on a `type: gate` phase), rejection
// routes (`onReject`) and form values as `{steps.ID.output.NAME}` in the
// DSL: decoding, the encoder's round trip, and each validation error with
// its path.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/default_agent.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_loader.h"
#include "scheduler/flow/flow_validator.h"
#include "tests/testing/flow_error_lines.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::LoadFlowErrors;
using ::taskboard::testing::LoadValidFlow;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

constexpr char kReview[] = R"(
name: review
phases:
  - id: build
    agent: coder
    task: build it
  - id: review
    type: gate
    task: "Ship {steps.build.output}?"
    approval:
      approvers: [alice, "role:admin"]
      choices: [later]
      form:
        - {name: version, required: true}
      onTimeout: reject
      onReject: fix
    timeoutSeconds: 3600
    dependsOn: [build]
  - id: fix
    agent: coder
    task: "fix it: {steps.review.json.comment}"
    dependsOn: [review]
  - id: ship
    agent: coder
    task: "ship {steps.review.output.version}"
    dependsOn: [review]
)";

// A flow of `build` and the phases given (JSON, after a comma).
std::string FlowWith(const std::string& phases) {
  return R"({"name": "f", "phases": [{"id": "build", "agent": "coder", "task": "b"}, )" + phases +
         "]}";
}

TEST(GateApprovalDsl, Decodes_TheApprovalBlock) {
  v1::FlowSpec spec = LoadValidFlow(kReview);
  const v1::Phase& gate = spec.taskflow().phases(1);
  EXPECT_EQ(gate.type(), v1::PHASE_TYPE_GATE);
  ASSERT_TRUE(gate.has_approval());
  EXPECT_TRUE(gate.approval().prompt().empty()) << "the gate's task is the prompt";
  EXPECT_THAT(gate.approval().approvers(), ElementsAre("alice", "role:admin"));
  EXPECT_THAT(gate.approval().choices(), ElementsAre("later"));
  ASSERT_EQ(gate.approval().form_size(), 1);
  EXPECT_TRUE(gate.approval().form(0).required());
  EXPECT_EQ(gate.approval().on_timeout(), v1::APPROVAL_ON_TIMEOUT_REJECT);
  EXPECT_THAT(gate.approval().on_reject(), ElementsAre("fix"));
  EXPECT_EQ(gate.timeout_seconds(), 3600);
}

TEST(GateApprovalDsl, ApprovalTrue_IsAnApprovalWithDefaults) {
  v1::FlowSpec spec = LoadValidFlow(FlowWith(
      R"({"id": "g", "type": "gate", "task": "ok {steps.build.output}?", "approval": true,
          "dependsOn": ["build"]})"));
  const v1::Phase& gate = spec.taskflow().phases(1);
  EXPECT_TRUE(gate.has_approval());
  EXPECT_EQ(gate.approval().ByteSizeLong(), 0u);
  // `approval: false` is no approval: an agent gives the verdict.
  v1::FlowSpec plain = LoadValidFlow(
      FlowWith(R"({"id": "g", "type": "gate", "agent": "x", "task": "ok?", "approval": false})"));
  EXPECT_FALSE(plain.taskflow().phases(1).has_approval());
}

TEST(GateApprovalDsl, GateWithApproval_NeedsNoAgent_ButAPlainGateDoes) {
  v1::FlowSpec spec = LoadValidFlow(FlowWith(
      R"({"id": "g", "type": "gate", "task": "ok?", "approval": true},
         {"id": "h", "type": "gate", "task": "verdict?"})"));
  EXPECT_THAT(UnsetAgentPaths(spec), ElementsAre("phases[2].agent"));
}

TEST(GateApprovalDsl, PromptInTheBlock_ReplacesTheTask) {
  v1::FlowSpec spec = LoadValidFlow(
      FlowWith(R"({"id": "g", "type": "gate", "approval": {"prompt": "ok {steps.build.output}?"},
                   "dependsOn": ["build"]})"));
  EXPECT_EQ(spec.taskflow().phases(1).approval().prompt(), "ok {steps.build.output}?");
  EXPECT_THAT(LoadFlowErrors(FlowWith(R"({"id": "g", "type": "gate", "approval": true})")),
              ElementsAre("phases[1].task: a gate phase needs a task"));
}

TEST(GateApprovalDsl, EncoderRoundTrip_GivesTheSameSpec) {
  for (const std::string& text :
       {std::string(kReview),
        FlowWith(R"({"id": "g", "type": "gate", "task": "ok?", "approval": true},
                    {"id": "a", "type": "approval", "prompt": "p", "onReject": ["x", "y"],
                     "dependsOn": ["g"]},
                    {"id": "x", "agent": "c", "task": "x", "dependsOn": ["a"]},
                    {"id": "y", "agent": "c", "task": "y", "dependsOn": ["a"]})")}) {
    v1::FlowSpec spec = LoadValidFlow(text);
    v1::FlowSpec again = LoadValidFlow(DumpJson(EncodeFlow(spec)));
    EXPECT_EQ(again.SerializeAsString(), spec.SerializeAsString()) << text;
  }
  Json encoded = EncodeFlow(
      LoadValidFlow(FlowWith(R"({"id": "g", "type": "gate", "task": "ok?", "approval": true})")));
  EXPECT_EQ(encoded["phases"][1]["approval"], Json(true));
}

TEST(GateApprovalDsl, MisplacedApprovals_NamedByPath) {
  EXPECT_THAT(
      LoadFlowErrors(FlowWith(R"({"id": "a", "agent": "x", "task": "t", "approval": true})")),
      ElementsAre("phases[1].approval: `approval` only applies to gate phases (a person gives "
                  "the verdict) and approval phases (`type: approval`)"));
  EXPECT_THAT(
      LoadFlowErrors(FlowWith(
          R"({"id": "g", "type": "gate", "task": "t", "approvers": ["bob"], "approval": true})")),
      ElementsAre("phases[1].approvers: `approvers` only applies to approval phases (`type: "
                  "approval`); on a gate, put it in its `approval:` block"));
  EXPECT_THAT(LoadFlowErrors(
                  FlowWith(R"({"id": "a", "type": "approval", "prompt": "p", "approval": true})")),
              ElementsAre("phases[1].approval: an approval phase writes its fields (prompt, "
                          "approvers, choices, form, onTimeout, onReject) on the phase itself: "
                          "remove the `approval:` wrapper"));
  EXPECT_THAT(
      LoadFlowErrors(FlowWith(R"({"id": "g", "type": "gate", "task": "t", "approval": "yes"})")),
      ElementsAre("phases[1].approval: must be true or {prompt?, approvers?, choices?, form?, "
                  "onTimeout?, onReject?} (got a string)"));
  EXPECT_THAT(
      LoadFlowErrors(FlowWith(R"({"id": "a", "agent": "x", "task": "t", "onReject": "build"})")),
      ElementsAre("phases[1].onReject: `onReject` only applies to approval phases (`type: "
                  "approval`)"));
}

TEST(GateApprovalDsl, BlockMistakes_NamedByPathInsideTheBlock) {
  std::vector<std::string> errors = LoadFlowErrors(FlowWith(
      R"({"id": "g", "type": "gate", "task": "t",
          "approval": {"approvers": ["role:owner"], "choices": ["reject"], "form": [{}],
                       "onTimeout": "approve", "whom": 1}})"));
  EXPECT_THAT(
      errors,
      UnorderedElementsAre(
          "phases[1].approval.approvers[0]: unknown role in 'role:owner'; use role:admin, "
          "role:client or a token name",
          "phases[1].approval.choices[0]: 'reject' is always a choice; list only the extra ones",
          "phases[1].approval.form[0].name: a form field needs a name",
          "phases[1].approval.onTimeout: onTimeout needs `timeoutSeconds` on the phase: how "
          "long to wait for a decision",
          ::testing::StartsWith("phases[1].approval.whom: unknown field 'whom'")));
}

TEST(GateApprovalDsl, OnRejectMistakes_NamedByPath) {
  EXPECT_THAT(
      LoadFlowErrors(FlowWith(
          R"({"id": "a", "type": "approval", "prompt": "p", "dependsOn": ["build"],
              "onReject": ["nope", "a", "build", "fix", "fix"]},
             {"id": "fix", "agent": "c", "task": "f", "dependsOn": ["a"]})")),
      UnorderedElementsAre(
          "phases[1].onReject[0]: unknown phase 'nope'; name a phase that depends on 'a'",
          "phases[1].onReject[1]: 'a' is this approval itself; name the phases that run when it "
          "rejects (they depend on it)",
          "phases[1].onReject[2]: phase 'build' does not depend on 'a': add 'a' to its "
          "dependsOn, so it runs after the decision",
          "phases[1].onReject[4]: duplicate phase 'fix'"));
  EXPECT_THAT(LoadFlowErrors(FlowWith(
                  R"({"id": "g", "type": "gate", "task": "t", "approval": {"onReject": ["x"]}},
                     {"id": "x", "agent": "c", "task": "x", "dependsOn": ["build"]})")),
              ElementsAre("phases[1].approval.onReject[0]: phase 'x' does not depend on 'g': add "
                          "'g' to its dependsOn, so it runs after the decision"));
  EXPECT_THAT(LoadFlowErrors(
                  FlowWith(R"({"id": "a", "type": "approval", "prompt": "p", "onReject": [3]})")),
              ElementsAre("phases[1].onReject[0]: must be a phase id (got a number)"));
}

TEST(GateApprovalDsl, OnRejectOnAnotherType_FromTheApi_IsReported) {
  // A FlowSpec sent through the API, not the DSL: an agent phase with an
  // approval (and its onReject).
  v1::FlowSpec spec = LoadValidFlow(FlowWith(R"({"id": "x", "agent": "c", "task": "x"})"));
  spec.mutable_taskflow()->mutable_phases(1)->mutable_approval()->add_on_reject("build");
  FlowErrorList errors;
  ValidateFlow(spec, &errors);
  EXPECT_THAT(
      ::taskboard::testing::FlowErrorLines(errors.ToStatus()),
      UnorderedElementsAre("phases[1].approval: `approval` only applies to gate phases (a person "
                           "gives the verdict) and approval phases (`type: approval`)",
                           "phases[1].onReject[0]: phase 'build' does not depend on 'x': add 'x' "
                           "to its dependsOn, so it runs after the decision"));
}

TEST(GateApprovalDsl, FormValuePlaceholders_AreChecked) {
  const std::string approval =
      R"({"id": "ok", "type": "approval", "prompt": "p", "dependsOn": ["build"],
          "form": [{"name": "version"}, {"name": "note"}]}, )";
  v1::FlowSpec valid = LoadValidFlow(FlowWith(approval + R"({"id": "s", "agent": "c",
      "task": "{steps.ok.output.version} {steps.ok.json.values.note}", "dependsOn": ["ok"]})"));
  EXPECT_EQ(valid.taskflow().phases_size(), 3);
  EXPECT_THAT(
      LoadFlowErrors(FlowWith(approval + R"({"id": "s", "agent": "c",
          "task": "{steps.ok.output.nope} {steps.ok.output.version.x} {steps.build.output.x}",
          "dependsOn": ["ok", "build"]})")),
      UnorderedElementsAre(
          "phases[2].task: {steps.ok.output.nope}: approval 'ok' has no form field 'nope' (its "
          "fields: version, note); its decision is {steps.ok.json.decision}",
          "phases[2].task: {steps.ok.output.version.x}: a form value is text, with no fields of "
          "its own; use {steps.ok.output.version}",
          "phases[2].task: {steps.build.output.x}: only approval steps have named outputs (their "
          "form values); phase 'build' is not one: read its JSON output with "
          "{steps.build.json.x}"));
  // A gate's approval has named outputs too; its prompt's path is in the block.
  EXPECT_THAT(LoadFlowErrors(FlowWith(R"({"id": "g", "type": "gate", "task": "t",
                  "approval": {"prompt": "{steps.build.output.x}"}, "dependsOn": ["build"]})")),
              ElementsAre(::testing::StartsWith("phases[1].approval.prompt: "
                                                "{steps.build.output.x}: only approval")));
}

}  // namespace
}  // namespace taskboard::flow
