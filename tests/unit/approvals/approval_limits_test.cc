// The caps on what a decision carries (scheduler/engine/approvals/approval_limits.h):
// a comment, a form value or a count of values 100 times over its limit is
// INVALID_ARGUMENT naming the limit, the field and the flag, leaves the
// approval waiting, and a normal decision then completes the run. A
// rejection's comment is stored once, on the approval's own task: the
// phases it skips refer to it.

#include "scheduler/engine/approvals/approval_limits.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "scheduler/flow/flow_errors.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/approvals/approval_calls.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::Answer;
using ::taskboard::engine::testing::DecideApproval;
using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::PendingApprovals;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::LoadValidFlow;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

constexpr char kRelease[] = R"({"name": "release", "phases": [
    {"id": "ok", "type": "approval", "prompt": "Ship?", "form": [{"name": "version"}]},
    {"id": "ship", "agent": "coder", "task": "ship {steps.ok.output.version}",
     "dependsOn": ["ok"]}]})";

constexpr ApprovalLimits kLimits{
    .max_comment_bytes = 100, .max_form_value_bytes = 50, .max_form_fields = 2};

TEST(ApprovalLimits, CommentOverTheLimit_NamesTheLimitTheFieldAndTheFlag) {
  EXPECT_THAT(CheckApprovalAnswer(Answer("approve", std::string(10'000, 'c')), kLimits),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "the approval's comment is 10000 bytes, over the scheduler's limit of 100 "
                       "bytes (scheduler flag --approval-max-comment-bytes); shorten it, or link "
                       "to the long text (a ticket, a document)"));
  EXPECT_THAT(CheckApprovalAnswer(Answer("approve", std::string(100, 'c')), kLimits), IsOk());
}

TEST(ApprovalLimits, FormValueOverTheLimit_NamesTheFieldAndTheFlag) {
  ApprovalAnswer answer = Answer("approve");
  answer.values["version"] = std::string(5'000, 'v');
  EXPECT_THAT(CheckApprovalAnswer(answer, kLimits),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("form value 'version' is 5000 bytes, over the scheduler's limit "
                                 "of 50 bytes (scheduler flag --approval-max-form-value-bytes)")));
  answer.values["version"] = std::string(50, 'v');
  EXPECT_THAT(CheckApprovalAnswer(answer, kLimits), IsOk());
}

TEST(ApprovalLimits, TooManyValues_NamesTheFlag_AndLongNamesAreNotEchoed) {
  ApprovalAnswer answer = Answer("approve");
  for (int i = 0; i < 200; ++i) answer.values[absl::StrCat("field", i)] = "x";
  EXPECT_THAT(CheckApprovalAnswer(answer, kLimits),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("200 form values, over the scheduler's limit of 2 form fields per "
                                 "approval (scheduler flag --approval-max-form-fields)")));
  ApprovalAnswer long_name = Answer("approve");
  long_name.values[std::string(100'000, 'n')] = std::string(5'000, 'v');
  absl::Status refused = CheckApprovalAnswer(long_name, kLimits);
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_LT(refused.message().size(), 400u) << "the name is quoted cut short";
}

TEST(ApprovalLimits, QuotedInError_CutsAtACharacterBoundary) {
  EXPECT_EQ(QuotedInError("short"), "short");
  const std::string ascii(100, 'a');
  // 63 ASCII bytes then a 2-byte character that straddles byte 64.
  const std::string straddling = std::string(63, 'a') + "\xC3\xA9" + "tail";
  EXPECT_EQ(QuotedInError(straddling), std::string(63, 'a') + "…");
  EXPECT_EQ(QuotedInError(ascii), std::string(64, 'a') + "…");
}

TEST(ApprovalLimits, FormWithMoreFieldsThanTheLimit_IsAFlowErrorAtItsPath) {
  std::string fields;
  for (int i = 0; i < 200; ++i) {
    absl::StrAppend(&fields, i == 0 ? "" : ",", R"({"name": "f)", i, R"("})");
  }
  v1::FlowSpec spec = LoadValidFlow(absl::StrCat(R"({"name": "wide", "phases": [
      {"id": "build", "agent": "coder", "task": "b"},
      {"id": "review", "type": "gate", "task": "ok?", "approval": {"form": [)",
                                                 fields, R"(]}, "dependsOn": ["build"]}]})"));
  flow::FlowErrorList errors;
  CheckApprovalForms(spec, kLimits, errors);
  EXPECT_THAT(errors.ToStatus(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("phases[1].approval.form: the form has 200 fields, over the "
                                 "scheduler's limit of 2 per approval (scheduler flag "
                                 "--approval-max-form-fields)")));
  flow::FlowErrorList none;
  CheckApprovalForms(spec, ApprovalLimits{.max_form_fields = 200}, none);
  EXPECT_TRUE(none.empty());
}

EngineOptions SmallApprovalLimits() {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.approval_limits = kLimits;
  return options;
}

TEST(ApprovalLimitsEngine, HundredTimesEachLimit_RefusedWaitingThenANormalDecisionCompletes) {
  EngineHarness h(SmallApprovalLimits());
  std::string run_id = h.Submit(kRelease);
  TestWorker worker = h.Connect("w1", {"coder"});
  ASSERT_THAT(PendingApprovals(h), SizeIs(1));

  EXPECT_THAT(
      DecideApproval(h, run_id, "ok", Answer("reject", std::string(10'000, 'c'))),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--approval-max-comment-bytes")));
  ApprovalAnswer big_value = Answer("approve");
  big_value.values["version"] = std::string(5'000, 'v');
  EXPECT_THAT(DecideApproval(h, run_id, "ok", big_value),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("form value 'version' is 5000 bytes")));
  ApprovalAnswer many = Answer("approve");
  for (int i = 0; i < 200; ++i) many.values[absl::StrCat("f", i)] = "x";
  EXPECT_THAT(
      DecideApproval(h, run_id, "ok", many),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--approval-max-form-fields")));

  // Still waiting, nothing of the refused answers stored.
  v1::Task waiting = h.ReadTaskView(run_id, "ok");
  EXPECT_EQ(waiting.state(), v1::TASK_STATE_RUNNING);
  EXPECT_FALSE(waiting.approval().has_decision());
  ASSERT_THAT(PendingApprovals(h), SizeIs(1));

  ApprovalAnswer normal = Answer("approve", "fine");
  normal.values["version"] = "1.2";
  ASSERT_THAT(DecideApproval(h, run_id, "ok", normal), IsOk());
  v1::Assignment ship = h.OnlyAssignment(worker);
  EXPECT_EQ(ship.prompt(), "ship 1.2");
  h.Finish(worker, ship, true, "shipped");
  EXPECT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
}

// A rejection that blocks a run with many phases not started yet.
std::string WideFlow(int phases) {
  std::string text = R"({"name": "wide", "phases": [
      {"id": "ok", "type": "approval", "prompt": "go?"})";
  for (int i = 0; i < phases; ++i) {
    absl::StrAppend(&text, R"(, {"id": "p)", i, R"(", "agent": "coder", "task": "t", )",
                    R"("dependsOn": [")", i == 0 ? std::string("ok") : absl::StrCat("p", i - 1),
                    R"("]})");
  }
  return text + "]}";
}

TEST(ApprovalLimitsEngine, Rejection_CommentStoredOnceSkippedPhasesReferToTheDecision) {
  EngineHarness h;
  std::string run_id = h.Submit(WideFlow(50));
  const std::string comment(4'000, 'c');
  ASSERT_THAT(DecideApproval(h, run_id, "ok", Answer("reject", comment)), IsOk());
  v1::Run run = h.ReadRunView(run_id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_BLOCKED);
  int skipped = 0;
  for (const v1::PhaseStatus& phase : run.phases()) {
    if (phase.state() != v1::TASK_STATE_SKIPPED) continue;
    ++skipped;
    EXPECT_EQ(phase.skip_reason(), "approval 'ok' blocked: rejected by alice (see its decision)")
        << phase.phase_id();
  }
  EXPECT_EQ(skipped, 50);
  // The person's comment is on the approval's own task, for GetRun and GetTask.
  v1::Task approval = h.ReadTaskView(run_id, "ok");
  EXPECT_EQ(approval.approval().decision().comment(), comment);
  // No event repeats it per skipped phase.
  int events_with_comment = 0;
  for (const v1::RunEvent& event : h.Events(run_id)) {
    if (event.SerializeAsString().find(comment) != std::string::npos) ++events_with_comment;
  }
  EXPECT_LE(events_with_comment, 3) << "the approval's task, its phase and the run's end";
  EXPECT_THAT(run.phases(1).skip_reason(), Not(HasSubstr("ccc")));
}

}  // namespace
}  // namespace taskboard::engine
