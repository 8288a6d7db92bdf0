// `type: approval` phases in the DSL: decoding, path-named validation errors
// and the round trip through the encoder.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_loader.h"
#include "tests/testing/flow_error_lines.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::LoadFlowErrors;
using ::taskboard::testing::LoadValidFlow;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

constexpr char kRelease[] = R"(
name: release
phases:
  - id: build
    agent: coder
    task: build it
  - id: ok
    type: approval
    prompt: "Ship {steps.build.output}?"
    choices: [later]
    form:
      - {name: version, description: the tag, required: true}
      - {name: note}
    timeoutSeconds: 60
    onTimeout: approve
    approvers: [alice, "role:admin"]
    dependsOn: [build]
  - id: ship
    agent: coder
    task: "ship {steps.ok.json.values.version}"
    dependsOn: [ok]
)";

TEST(ApprovalDsl, Decodes_EveryField) {
  v1::FlowSpec spec = LoadValidFlow(kRelease);
  const v1::Phase& phase = spec.taskflow().phases(1);
  EXPECT_EQ(phase.type(), v1::PHASE_TYPE_APPROVAL);
  EXPECT_EQ(phase.approval().prompt(), "Ship {steps.build.output}?");
  EXPECT_THAT(phase.approval().choices(), ElementsAre("later"));
  ASSERT_EQ(phase.approval().form_size(), 2);
  EXPECT_EQ(phase.approval().form(0).name(), "version");
  EXPECT_TRUE(phase.approval().form(0).required());
  EXPECT_FALSE(phase.approval().form(1).required());
  EXPECT_EQ(phase.approval().on_timeout(), v1::APPROVAL_ON_TIMEOUT_APPROVE);
  EXPECT_THAT(phase.approval().approvers(), ElementsAre("alice", "role:admin"));
  EXPECT_EQ(phase.timeout_seconds(), 60);
  EXPECT_TRUE(phase.agent().empty()) << "an approval runs no agent";
}

TEST(ApprovalDsl, EncoderRoundTrip_GivesTheSameSpec) {
  v1::FlowSpec spec = LoadValidFlow(kRelease);
  v1::FlowSpec again = LoadValidFlow(DumpJson(EncodeFlow(spec)));
  EXPECT_EQ(again.SerializeAsString(), spec.SerializeAsString());
}

TEST(ApprovalDsl, Mistakes_NamedByPath) {
  EXPECT_THAT(
      LoadFlowErrors(R"({"name": "f", "phases": [
          {"id": "a", "type": "approval", "task": "x",
           "choices": ["approve", "bad name", "later", "later"],
           "form": [{"name": "v"}, {"name": "v"}, {}],
           "onTimeout": "approve", "approvers": ["role:owner", ""]}]})"),
      UnorderedElementsAre(
          "phases[0].task: an approval phase asks a person with `prompt`, not `task`: rename the "
          "field",
          "phases[0].prompt: an approval phase needs a `prompt`: what the approver is asked to "
          "decide",
          "phases[0].choices[0]: 'approve' is always a choice; list only the extra ones",
          "phases[0].choices[1]: 'bad name' is not a valid choice name (letters, digits, '_' and "
          "'-')",
          "phases[0].choices[3]: duplicate choice 'later'",
          "phases[0].form[1].name: duplicate form field 'v'",
          "phases[0].form[2].name: a form field needs a name",
          "phases[0].approvers[0]: unknown role in 'role:owner'; use role:admin, role:client or a "
          "token name",
          "phases[0].approvers[1]: an approver needs a token name, role:admin or role:client",
          "phases[0].onTimeout: onTimeout needs `timeoutSeconds` on the phase: how long to wait "
          "for a decision"));
}

TEST(ApprovalDsl, ApprovalFieldsOnAnotherType_AreReported) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "phases": [
                  {"id": "a", "agent": "x", "task": "t", "prompt": "ok?"}]})"),
              ElementsAre("phases[0].prompt: `prompt` only applies to approval phases (`type: "
                          "approval`)"));
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "phases": [
                  {"id": "a", "type": "approval", "prompt": "p", "onTimeout": "maybe",
                   "timeoutSeconds": 5}]})"),
              ElementsAre("phases[0].onTimeout: must be reject, approve or fail (got \"maybe\")"));
}

TEST(ApprovalDsl, AgentFieldsOnAPersonsDecision_AreReportedNotIgnored) {
  EXPECT_THAT(
      LoadFlowErrors(R"({"name": "f", "phases": [
          {"id": "a", "type": "approval", "prompt": "ok?", "agent": "coder", "model": "m",
           "thinking": "high", "tools": ["search"]}]})"),
      UnorderedElementsAre(
          "phases[0].agent: an approval phase is decided by a person, not an agent: `agent` "
          "does not apply; remove it",
          "phases[0].model: an approval phase is decided by a person, not an agent: `model` "
          "does not apply; remove it",
          "phases[0].thinking: an approval phase is decided by a person, not an agent: "
          "`thinking` does not apply; remove it",
          "phases[0].tools: an approval phase is decided by a person, not an agent: `tools` "
          "does not apply; remove it"));
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "phases": [
                  {"id": "a", "agent": "x", "task": "draft"},
                  {"id": "g", "type": "gate", "agent": "x", "task": "is {steps.a.output} ok?",
                   "approval": true, "dependsOn": ["a"]}]})"),
              ElementsAre("phases[1].agent: a gate with `approval` is decided by a person, not "
                          "an agent: `agent` does not apply; remove it"));
}

TEST(ApprovalDsl, PromptPlaceholders_AreChecked) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "phases": [
                  {"id": "a", "agent": "x", "task": "t"},
                  {"id": "b", "type": "approval", "prompt": "see {steps.a.output}"}]})"),
              ElementsAre(::testing::StartsWith("phases[1].prompt: ")));
}

}  // namespace
}  // namespace taskboard::flow
