// What a decision may carry, with real processes (docs/approvals.md): a
// scheduler with small --approval-max-* limits refuses a comment, a form
// value and a count of values 100 times over the limit with INVALID_ARGUMENT
// naming the limit, the field and the flag, and a flow whose form has 100
// times the fields at submit; the approval keeps waiting and a normal
// decision completes the run. A rejection's comment is stored once: GetRun
// shows it on the approval's own task, and the phases it skips refer to it.

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

ClusterOptions SmallDecisionLimits() {
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--approval-max-comment-bytes",    "100",
                             "--approval-max-form-value-bytes", "50",
                             "--approval-max-form-fields",      "2"};
  return options;
}

// An approval, then `downstream` phases in a chain after it.
std::string Release(int downstream) {
  std::string text = R"(name: release
phases:
  - id: ok
    type: approval
    prompt: Ship it?
    form: [{name: version}]
)";
  for (int i = 0; i < downstream; ++i) {
    absl::StrAppend(
        &text, "  - id: p", i, "\n    agent: echo\n    task: echo {steps.ok.output.version}\n",
        "    dependsOn: [", i == 0 ? std::string("ok") : absl::StrCat("p", i - 1), "]\n");
  }
  return text;
}

class DecisionLimitsTest : public testing::ClusterTest {
 protected:
  DecisionLimitsTest() : ClusterTest(SmallDecisionLimits()) {}

  grpc::Status Decide(const v1::DecideApprovalRequest& request) {
    grpc::ClientContext context;
    v1::DecideApprovalResponse response;
    return cluster_.client().DecideApproval(&context, request, &response);
  }

  static bool Waiting(const v1::Run& run) {
    for (const v1::Task& task : run.tasks()) {
      if (task.task_id() == "ok" && task.state() == v1::TASK_STATE_RUNNING) return true;
    }
    return false;
  }
};

TEST_F(DecisionLimitsTest, HundredTimesEachLimit_RefusedNamingTheFlag_ThenADecisionCompletes) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(Release(2));
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster_.WaitUntil(*run_id, Waiting).status(), IsOk());

  v1::DecideApprovalRequest request;
  request.set_run_id(*run_id);
  request.set_step_id("ok");
  request.set_decision("approve");
  request.set_comment(std::string(10'000, 'c'));
  grpc::Status comment = Decide(request);
  EXPECT_EQ(comment.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(comment.error_message(),
              HasSubstr("the approval's comment is 10000 bytes, over the scheduler's limit of "
                        "100 bytes (scheduler flag --approval-max-comment-bytes)"));

  request.clear_comment();
  (*request.mutable_values())["version"] = std::string(5'000, 'v');
  grpc::Status value = Decide(request);
  EXPECT_EQ(value.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(value.error_message(),
              HasSubstr("form value 'version' is 5000 bytes, over the scheduler's limit of 50 "
                        "bytes (scheduler flag --approval-max-form-value-bytes)"));

  request.clear_values();
  for (int i = 0; i < 200; ++i) (*request.mutable_values())[absl::StrCat("f", i)] = "x";
  grpc::Status many = Decide(request);
  EXPECT_EQ(many.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(many.error_message(), HasSubstr("(scheduler flag --approval-max-form-fields)"));

  // Still waiting; a normal decision completes the run.
  absl::StatusOr<v1::Run> waiting = cluster_.GetRun(*run_id);
  ASSERT_THAT(waiting.status(), IsOk());
  EXPECT_TRUE(Waiting(*waiting));
  request.clear_values();
  (*request.mutable_values())["version"] = "1.2";
  request.set_comment("ship it");
  grpc::Status decided = Decide(request);
  ASSERT_TRUE(decided.ok()) << decided.error_message();
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();
  EXPECT_EQ(run->output(), "1.2\n");
  ExpectStillServing();
}

TEST_F(DecisionLimitsTest, FormWithHundredTimesTheFields_RefusedAtSubmit) {
  std::string fields;
  for (int i = 0; i < 200; ++i) absl::StrAppend(&fields, i == 0 ? "" : ", ", "{name: f", i, "}");
  absl::StatusOr<std::string> run_id = cluster_.Submit(absl::StrCat(
      "name: wide\nphases:\n  - id: ok\n    type: approval\n    prompt: go?\n    form: [", fields,
      "]\n"));
  EXPECT_THAT(run_id.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(run_id.status().message()),
              HasSubstr("phases[0].form: the form has 200 fields, over the scheduler's limit of 2 "
                        "per approval (scheduler flag --approval-max-form-fields)"));
  ExpectStillServing();
}

TEST_F(DecisionLimitsTest, Rejection_CommentShownOnceOnItsTask_SkippedPhasesReferToIt) {
  constexpr int kDownstream = 100;
  absl::StatusOr<std::string> run_id = cluster_.Submit(Release(kDownstream));
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster_.WaitUntil(*run_id, Waiting).status(), IsOk());
  const std::string comment = std::string(90, 'z') + " too soon";
  v1::DecideApprovalRequest request;
  request.set_run_id(*run_id);
  request.set_step_id("ok");
  request.set_decision("reject");
  request.set_comment(comment);
  grpc::Status decided = Decide(request);
  ASSERT_TRUE(decided.ok()) << decided.error_message();

  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_BLOCKED);
  int skipped = 0;
  for (const v1::PhaseStatus& phase : run->phases()) {
    if (phase.state() != v1::TASK_STATE_SKIPPED) continue;
    ++skipped;
    EXPECT_EQ(phase.skip_reason(), "approval 'ok' blocked: rejected by local (see its decision)");
  }
  EXPECT_EQ(skipped, kDownstream);
  bool shown = false;
  for (const v1::Task& task : run->tasks()) {
    if (task.task_id() == "ok") shown = task.approval().decision().comment() == comment;
  }
  EXPECT_TRUE(shown) << "the comment is on the approval's task";
  // GetRun holds the comment a fixed few times (the task's decision and
  // output, the approval phase's verdict, the run's blocked output), never
  // once per skipped phase.
  const std::string answer = run->SerializeAsString();
  int copies = 0;
  for (size_t at = answer.find(comment); at != std::string::npos;
       at = answer.find(comment, at + 1)) {
    ++copies;
  }
  EXPECT_LE(copies, 6);
  ExpectStillServing();
}

}  // namespace
}  // namespace taskboard
