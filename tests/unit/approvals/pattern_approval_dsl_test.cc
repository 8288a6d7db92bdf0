// The approvals patterns ask, in the DSL: plan-and-execute `approvePlan`
// (also on a `type: plan` phase) and the supervisor's `onEscalate` /
// `humanReview`: decoding, the encoder round trip, and path-named mistakes.

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

std::string PlanFlow(const std::string& approve) {
  return R"({"name": "pe", "kind": "plan_and_execute",
      "planAndExecute": {"goal": "ship", "plannerAgent": "p", "executorAgent": "e",
                         "approvePlan": )" +
         approve + "}}";
}

std::string SupervisorFlow(const std::string& extra) {
  return R"({"name": "sup", "kind": "supervisor",
      "supervisor": {"goal": "docs", "plannerAgent": "p", "workerAgent": "w",
                     "reviewerAgent": "r")" +
         extra + "}}";
}

void ExpectRoundTrip(const v1::FlowSpec& spec) {
  v1::FlowSpec again = LoadValidFlow(DumpJson(EncodeFlow(spec)));
  EXPECT_EQ(again.SerializeAsString(), spec.SerializeAsString()) << DumpJson(EncodeFlow(spec));
}

TEST(PatternApprovalDsl, ApprovePlanTrue_AsksWithoutSettings) {
  v1::FlowSpec spec = LoadValidFlow(PlanFlow("true"));
  ASSERT_TRUE(spec.plan_and_execute().has_plan_approval());
  EXPECT_THAT(spec.plan_and_execute().plan_approval().approvers(), ::testing::IsEmpty());
  EXPECT_EQ(spec.plan_and_execute().plan_approval().timeout_seconds(), 0);
  EXPECT_EQ(EncodeFlow(spec)["planAndExecute"]["approvePlan"], Json(true));
  ExpectRoundTrip(spec);
}

TEST(PatternApprovalDsl, ApprovePlanFalse_DoesNotAsk) {
  EXPECT_FALSE(LoadValidFlow(PlanFlow("false")).plan_and_execute().has_plan_approval());
}

TEST(PatternApprovalDsl, ApprovePlanObject_DecodesAndRoundTrips) {
  v1::FlowSpec spec = LoadValidFlow(PlanFlow(
      R"({"approvers": ["alice", "role:admin"], "timeoutSeconds": 600, "onTimeout": "approve"})"));
  const v1::Approval& approval = spec.plan_and_execute().plan_approval();
  EXPECT_THAT(approval.approvers(), ElementsAre("alice", "role:admin"));
  EXPECT_EQ(approval.timeout_seconds(), 600);
  EXPECT_EQ(approval.on_timeout(), v1::APPROVAL_ON_TIMEOUT_APPROVE);
  ExpectRoundTrip(spec);
}

TEST(PatternApprovalDsl, ApprovePlanOnAPlanPhase_Decodes) {
  v1::FlowSpec spec = LoadValidFlow(R"(
name: f
phases:
  - id: research
    type: plan
    agent: e
    task: research the topic
    plan:
      plannerAgent: p
      approvePlan: {approvers: [bob]}
)");
  EXPECT_THAT(spec.taskflow().phases(0).plan().plan_approval().approvers(), ElementsAre("bob"));
  ExpectRoundTrip(spec);
}

TEST(PatternApprovalDsl, ApprovePlanMistakes_NamedByPath) {
  EXPECT_THAT(LoadFlowErrors(PlanFlow("\"yes\"")),
              ElementsAre("planAndExecute.approvePlan: must be true, false or {approvers, "
                          "timeoutSeconds, onTimeout} (got a string)"));
  EXPECT_THAT(
      LoadFlowErrors(PlanFlow(
          R"({"approvers": ["role:owner"], "onTimeout": "fail", "prompt": "p", "timeoutSeconds": 0})")),
      UnorderedElementsAre(
          "planAndExecute.approvePlan.approvers[0]: unknown role in 'role:owner'; use role:admin, "
          "role:client or a token name",
          "planAndExecute.approvePlan.prompt: unknown field 'prompt'",
          ::testing::StartsWith("planAndExecute.approvePlan.timeoutSeconds: "),
          "planAndExecute.approvePlan.onTimeout: onTimeout needs `timeoutSeconds` here: how long "
          "to wait for a decision"));
  EXPECT_THAT(LoadFlowErrors(PlanFlow(R"({"onTimeout": "later", "timeoutSeconds": 5})")),
              ElementsAre("planAndExecute.approvePlan.onTimeout: must be reject, approve or fail "
                          "(got \"later\")"));
}

TEST(PatternApprovalDsl, OnEscalateHuman_WithHumanReview_DecodesAndRoundTrips) {
  v1::FlowSpec spec = LoadValidFlow(SupervisorFlow(
      R"(, "onEscalate": "human",
         "humanReview": {"approvers": ["alice"], "timeoutSeconds": 60, "onTimeout": "fail"})"));
  const v1::SupervisorSpec& supervisor = spec.supervisor();
  EXPECT_EQ(supervisor.on_escalate(), v1::ON_ESCALATE_HUMAN);
  EXPECT_THAT(supervisor.human_review().approvers(), ElementsAre("alice"));
  EXPECT_EQ(supervisor.human_review().timeout_seconds(), 60);
  EXPECT_EQ(supervisor.human_review().on_timeout(), v1::APPROVAL_ON_TIMEOUT_FAIL);
  ExpectRoundTrip(spec);
  v1::FlowSpec report = LoadValidFlow(SupervisorFlow(R"(, "onEscalate": "report")"));
  EXPECT_EQ(report.supervisor().on_escalate(), v1::ON_ESCALATE_REPORT);
  ExpectRoundTrip(report);
}

TEST(PatternApprovalDsl, SupervisorMistakes_NamedByPath) {
  EXPECT_THAT(LoadFlowErrors(SupervisorFlow(R"(, "onEscalate": "person")")),
              ElementsAre("supervisor.onEscalate: must be report or human (got \"person\")"));
  EXPECT_THAT(LoadFlowErrors(SupervisorFlow(R"(, "onEscalate": true)")),
              ElementsAre("supervisor.onEscalate: must be report or human (got a boolean)"));
  EXPECT_THAT(LoadFlowErrors(SupervisorFlow(R"(, "humanReview": {"approvers": ["alice"]})")),
              ElementsAre("supervisor.humanReview: humanReview says who reviews escalations, "
                          "which only a person does with `onEscalate: human`: add it, or remove "
                          "humanReview"));
  EXPECT_THAT(LoadFlowErrors(SupervisorFlow(
                  R"(, "onEscalate": "human", "humanReview": {"approvers": [""], "who": 1})")),
              UnorderedElementsAre("supervisor.humanReview.who: unknown field 'who'",
                                   "supervisor.humanReview.approvers[0]: an approver needs a "
                                   "token name, role:admin or role:client"));
  EXPECT_THAT(LoadFlowErrors(SupervisorFlow(R"(, "onEscalate": "human", "humanReview": [1])")),
              ElementsAre("supervisor.humanReview: must be {approvers, timeoutSeconds, "
                          "onTimeout} (got an array)"));
}

}  // namespace
}  // namespace taskboard::flow
