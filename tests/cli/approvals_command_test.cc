// `taskboard approvals`, `approve` and `reject` against a scripted
// scheduler, and how `run`/`watch`/`show` draw a step waiting for a person.

#include "tools/cli/approvals_command.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/fake_scheduler.h"
#include "tests/cli/run_fixtures.h"
#include "tests/testing/temp_dir.h"
#include "tools/cli/run_render.h"

namespace taskboard::cli {
namespace {

using ::testing::AllOf;
using testing::At;
using testing::Cli;
using testing::FakeScheduler;
using ::testing::HasSubstr;
using testing::MakeRun;
using testing::ParseText;
using ::testing::StartsWith;

v1::ListApprovalsResponse TwoPending() {
  return ParseText<v1::ListApprovalsResponse>(R"pb(
    approvals {
      run_id: "r-1"
      step_id: "ok"
      flow_name: "release"
      approval {
        prompt: "Ship v1?\nDetails below"
        form { name: "version" required: true }
        form { name: "note" }
        waiting_since { seconds: 1699999400 }
        deadline { seconds: 1700000600 }
      }
    }
    approvals {
      run_id: "r-2"
      step_id: "review"
      approval {
        prompt: "Merge?"
        waiting_since { seconds: 1699999940 }
      }
    }
  )pb");
}

TEST(ApprovalsCommand, Table_OldestFirstWithWaitDeadlineFormAndPrompt) {
  std::ostringstream out;
  PrintApprovalTable(TwoPending(), At(absl::ZeroDuration()), 0, out);
  EXPECT_EQ(out.str(),
            "RUN  STEP    WAITING  DEADLINE  FORM           PROMPT\n"
            "r-1  ok      10m      in 10m    version*,note  Ship v1?\n"
            "r-2  review  1m       -         -              Merge?\n");
}

TEST(ApprovalsCommand, ListsThePendingApprovals) {
  FakeScheduler scheduler;
  scheduler.SetApprovals(TwoPending());
  testing::CliResult result = Cli({"approvals", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(StartsWith("RUN  STEP"), HasSubstr("\nr-2  review")));
}

TEST(ApprovalsCommand, NoneWaiting_SaysSo) {
  FakeScheduler scheduler;
  testing::CliResult result = Cli({"approvals", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.err, "no approvals waiting\n");
}

TEST(ApprovalsCommand, Approve_SendsValuesChoiceAndComment) {
  FakeScheduler scheduler;
  testing::CliResult result =
      Cli({"approve", "r-1", "ok", "--set", "version=1.2", "--set", "note=a=b", "--comment",
           "ship it", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "r-1 ok: approve by alice\n");
  const v1::DecideApprovalRequest request = scheduler.decide_request();
  EXPECT_EQ(request.run_id(), "r-1");
  EXPECT_EQ(request.step_id(), "ok");
  EXPECT_EQ(request.decision(), "approve");
  EXPECT_EQ(request.values().at("version"), "1.2");
  EXPECT_EQ(request.values().at("note"), "a=b");
  EXPECT_EQ(request.comment(), "ship it");

  result = Cli({"approve", "r-1", "ok", "--choice", "later", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(scheduler.decide_request().decision(), "choice");
  EXPECT_EQ(scheduler.decide_request().choice(), "later");
}

TEST(ApprovalsCommand, Reject_SendsTheComment) {
  FakeScheduler scheduler;
  testing::CliResult result =
      Cli({"reject", "r-1", "ok", "--comment", "not now", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "r-1 ok: reject by alice\n");
  EXPECT_EQ(scheduler.decide_request().decision(), "reject");
  EXPECT_EQ(scheduler.decide_request().comment(), "not now");
}

constexpr char kEditedPlan[] = R"({"tasks": [{"id": "a", "goal": "A"}]})";

TEST(ApprovalsCommand, ApproveWithPlanFile_SendsTheEditedPlan) {
  FakeScheduler scheduler;
  ::taskboard::testing::TempDir dir;
  const std::string path = (dir.path() / "plan.json").string();
  std::ofstream(path) << kEditedPlan;
  testing::CliResult result = Cli({"approve", "r-1", "approve-plan-1", "--plan", path, "--comment",
                                   "smaller", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(scheduler.decide_request().decision(), "approve");
  EXPECT_EQ(scheduler.decide_request().edited_plan(), kEditedPlan);
  EXPECT_EQ(scheduler.decide_request().comment(), "smaller");
}

TEST(ApprovalsCommand, ApproveWithPlanFromStdin_SendsIt) {
  FakeScheduler scheduler;
  ApprovalsOptions options;
  options.scheduler = scheduler.address();
  options.run_id = "r-1";
  options.step_id = "approve-plan-1";
  options.plan_file = "-";
  std::istringstream in(kEditedPlan);
  std::ostringstream out, err;
  EXPECT_EQ(RunDecideApproval(options, "approve", in, out, err), 0) << err.str();
  EXPECT_EQ(scheduler.decide_request().edited_plan(), kEditedPlan);
  EXPECT_EQ(out.str(), "r-1 approve-plan-1: approve by alice\n");
}

TEST(ApprovalsCommand, PlanFileMissingOrEmpty_IsAUsageError) {
  FakeScheduler scheduler;
  testing::CliResult result = Cli({"approve", "r-1", "approve-plan-1", "--plan", "/no/such/plan",
                                   "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("cannot read --plan file '/no/such/plan'"));
  ApprovalsOptions options;
  options.scheduler = scheduler.address();
  options.plan_file = "-";
  std::istringstream in("  \n");
  std::ostringstream out, err;
  EXPECT_EQ(RunDecideApproval(options, "approve", in, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("the --plan input is empty"));
}

TEST(ApprovalsCommand, PlanApprovalAndHumanReview_ShowTheirFirstPromptLine) {
  const v1::ListApprovalsResponse approvals = ParseText<v1::ListApprovalsResponse>(R"pb(
    approvals {
      run_id: "r-1"
      step_id: "approve-plan-1"
      approval { prompt: "Approve the plan (2 steps) for: ship it\n\n1. a: A" }
    }
    approvals {
      run_id: "r-2"
      step_id: "review-api-1"
      approval { prompt: "Review the escalated task 'api': API\n\nIts result:" }
    }
  )pb");
  std::ostringstream out;
  PrintApprovalTable(approvals, At(absl::ZeroDuration()), 0, out);
  EXPECT_THAT(out.str(), HasSubstr("approve-plan-1  -        -         -     Approve the plan (2 "
                                   "steps) for: ship it\n"));
  EXPECT_THAT(out.str(), HasSubstr("Review the escalated task 'api': API\n"));
}

TEST(ApprovalsCommand, BadSet_IsAUsageError) {
  FakeScheduler scheduler;
  testing::CliResult result =
      Cli({"approve", "r-1", "ok", "--set", "novalue", "--scheduler", scheduler.address()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("--set takes NAME=VALUE (got 'novalue')"));
}

TEST(ApprovalsCommand, RunView_ShowsWaitingForApprovalWithThePrompt) {
  const v1::Run run =
      MakeRun(R"pb(
                run_id: "r-1"
                flow_name: "release"
                kind: FLOW_KIND_TASKFLOW
                status: RUN_STATUS_RUNNING
                phases { phase_id: "ok" type: PHASE_TYPE_APPROVAL state: TASK_STATE_RUNNING }
                tasks {
                  task_id: "ok"
                  phase_id: "ok"
                  role: "approval"
                  state: TASK_STATE_RUNNING
                  approval { prompt: "Ship v1?\nmore" }
                }
              )pb",
              R"({"name": "release", "phases": [
                                  {"id": "ok", "type": "approval", "prompt": "Ship?"}]})");
  EXPECT_THAT(RenderRun(run, At(absl::ZeroDuration())),
              HasSubstr("waiting for approval: Ship v1?"));
}

TEST(ApprovalsCommand, PatternRunView_ShowsPlanApprovalAndHumanReview) {
  const v1::Run run = MakeRun(R"pb(
    run_id: "r-1"
    flow_name: "pe"
    kind: FLOW_KIND_PLAN_AND_EXECUTE
    status: RUN_STATUS_RUNNING
    board_meta: "approving"
    tasks { task_id: "planner" role: "planner" state: TASK_STATE_COMPLETED }
    tasks {
      task_id: "approve-plan-1"
      role: "approval"
      state: TASK_STATE_RUNNING
      approval { prompt: "Approve the plan (1 step) for: ship it\n\n1. a: A" }
    }
    tasks {
      task_id: "review-api-1"
      role: "approval"
      state: TASK_STATE_COMPLETED
      approval {
        prompt: "Review the escalated task 'api': API"
        decision { decision: "revise" decided_by: "bob" comment: "add examples" }
      }
    }
  )pb");
  const std::string text = RenderRun(run, At(absl::ZeroDuration()));
  EXPECT_THAT(text, HasSubstr("waiting for approval: Approve the plan (1 step) for: ship it"));
  EXPECT_THAT(text, HasSubstr("revise by bob: add examples"));
}

TEST(ApprovalsCommand, RunView_ShowsTheDecisionAndWhoMadeIt) {
  const v1::Run run =
      MakeRun(R"pb(
                run_id: "r-1"
                flow_name: "release"
                kind: FLOW_KIND_TASKFLOW
                status: RUN_STATUS_BLOCKED
                phases {
                  phase_id: "ok"
                  type: PHASE_TYPE_APPROVAL
                  state: TASK_STATE_COMPLETED
                  gate { pass: false reason: "rejected by bob: not now" }
                }
                tasks {
                  task_id: "ok"
                  phase_id: "ok"
                  role: "approval"
                  state: TASK_STATE_COMPLETED
                  approval {
                    prompt: "Ship?"
                    decision { decision: "reject" decided_by: "bob" comment: "not now" }
                  }
                }
              )pb",
              R"({"name": "release", "phases": [
                                  {"id": "ok", "type": "approval", "prompt": "Ship?"}]})");
  EXPECT_THAT(RenderRun(run, At(absl::ZeroDuration())), HasSubstr("rejected by bob: not now"));
}

TEST(ApprovalsCommand, RunView_AGateAPersonDecided_ShowsWhoApproved) {
  const v1::Run run =
      MakeRun(R"pb(
                run_id: "r-1"
                flow_name: "release"
                kind: FLOW_KIND_TASKFLOW
                status: RUN_STATUS_RUNNING
                phases {
                  phase_id: "review"
                  type: PHASE_TYPE_GATE
                  state: TASK_STATE_COMPLETED
                  gate { pass: true }
                }
                tasks {
                  task_id: "review"
                  phase_id: "review"
                  role: "approval"
                  state: TASK_STATE_COMPLETED
                  approval {
                    prompt: "Ship?"
                    decision { decision: "approve" decided_by: "alice" comment: "ship it" }
                  }
                }
              )pb",
              R"({"name": "release", "phases": [
                  {"id": "review", "type": "gate", "task": "Ship?", "approval": true}]})");
  EXPECT_THAT(RenderRun(run, At(absl::ZeroDuration())), HasSubstr("approved by alice: ship it"));
}

}  // namespace
}  // namespace taskboard::cli
