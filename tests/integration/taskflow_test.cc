// Taskflow runs across real processes: a scheduler and two workers on
// loopback, command agents running tests/integration/agents/script.sh (the
// task text is the agent's script: `echo`, `fail`, `sleep`, `list`...).

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/rpc/status.pb.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::Cluster;
using testing::IsOk;
using testing::StatusIs;

const v1::PhaseStatus& Phase(const v1::Run& run, const std::string& id) {
  for (const v1::PhaseStatus& phase : run.phases()) {
    if (phase.phase_id() == id) return phase;
  }
  ADD_FAILURE() << "run has no phase " << id;
  static v1::PhaseStatus none;
  return none;
}

class TaskflowTest : public testing::ClusterTest {
 protected:
  // Submits and waits for the run to finish.
  v1::Run Run(const std::string& flow, const Json& args = Json::object()) {
    absl::StatusOr<std::string> run_id = cluster_.Submit(flow, args);
    EXPECT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
    if (!run_id.ok()) return {};
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
    EXPECT_THAT(run.status(), IsOk());
    return run.ok() ? *run : v1::Run();
  }
};

TEST_F(TaskflowTest, Chain_PassesEachOutputToTheNextStep) {
  v1::Run run = Run(R"(
name: chain
phases:
  - id: a
    agent: echo
    task: "echo alpha"
  - id: b
    agent: echo
    dependsOn: [a]
    task: "echo {steps.a.output}-beta"
  - id: c
    agent: helper
    dependsOn: [b]
    task: "echo {previous.output}-gamma"
)");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  EXPECT_EQ(run.output(), "alpha\n-beta\n-gamma\n");
  ASSERT_EQ(run.tasks_size(), 3);
  for (const v1::Task& task : run.tasks()) {
    EXPECT_EQ(task.state(), v1::TASK_STATE_COMPLETED);
    EXPECT_THAT(task.worker_id(), HasSubstr("worker-"));
  }
}

TEST_F(TaskflowTest, Map_FansOutOverFiftyItemsAndMergesInOrder) {
  v1::Run run = Run(R"(
name: fanout
concurrency: 4
phases:
  - id: items
    agent: echo
    output: json
    task: "list 50"
  - id: each
    type: map
    dependsOn: [items]
    over: "{steps.items.json}"
    agent: echo
    concurrency: 6
    task: "echo item {item.n}"
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  const v1::PhaseStatus& each = Phase(run, "each");
  EXPECT_EQ(each.items_total(), 50);
  EXPECT_EQ(each.items_done(), 50);
  EXPECT_EQ(run.tasks_size(), 51);
  std::vector<std::string> sections = absl::StrSplit(run.output(), "\n\n---\n\n");
  ASSERT_EQ(sections.size(), 50u);
  EXPECT_EQ(sections[0], "### [1/50] echo\n\nitem 1\n");
  EXPECT_EQ(sections[49], "### [50/50] echo\n\nitem 50\n");
}

TEST_F(TaskflowTest, ParallelAndReduce_CombineBranchOutputs) {
  v1::Run run = Run(R"(
name: parallel-reduce
phases:
  - id: branches
    type: parallel
    agent: echo
    branches:
      - task: "echo left"
      - task: "echo right"
        agent: helper
  - id: combine
    type: reduce
    from: [branches]
    agent: echo
    task: "echo combined: {steps.branches.output}"
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  EXPECT_EQ(run.output(),
            "combined: ### [1/2] echo\n\nleft\n\n\n---\n\n### [2/2] helper\n\nright\n\n");
}

TEST_F(TaskflowTest, Gate_PassContinuesAndBlockSkipsTheRest) {
  v1::Run passed = Run(R"(
name: gate-pass
phases:
  - id: check
    type: gate
    agent: echo
    task: "verdict PASS"
  - id: after
    agent: echo
    dependsOn: [check]
    task: "echo went on"
)");
  EXPECT_EQ(passed.status(), v1::RUN_STATUS_COMPLETED) << passed.error() << cluster_.Logs();
  EXPECT_TRUE(Phase(passed, "check").gate().pass());
  EXPECT_EQ(passed.output(), "went on\n");

  v1::Run blocked = Run(R"(
name: gate-block
phases:
  - id: check
    type: gate
    agent: echo
    task: "verdict BLOCK secrets found"
  - id: after
    agent: echo
    dependsOn: [check]
    task: "echo must not run"
)");
  EXPECT_EQ(blocked.status(), v1::RUN_STATUS_BLOCKED) << cluster_.Logs();
  EXPECT_FALSE(Phase(blocked, "check").gate().pass());
  EXPECT_EQ(Phase(blocked, "after").state(), v1::TASK_STATE_SKIPPED);
  EXPECT_THAT(Phase(blocked, "after").skip_reason(), HasSubstr("gate 'check' blocked"));
  EXPECT_THAT(blocked.output(), HasSubstr("Gate blocked the workflow.\nReason: "));
}

TEST_F(TaskflowTest, Failure_SkipsDependentsTransitivelyButNotOptionalOnes) {
  v1::Run run = Run(R"(
name: failing
phases:
  - id: bad
    agent: echo
    task: "fail the disk is full"
  - id: child
    agent: echo
    dependsOn: [bad]
    task: "echo child"
  - id: grandchild
    agent: echo
    dependsOn: [child]
    task: "echo grandchild"
  - id: side
    agent: echo
    task: "echo independent"
)");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << cluster_.Logs();
  EXPECT_THAT(run.error(), HasSubstr("phase 'bad' failed"));
  EXPECT_THAT(run.error(), HasSubstr("the disk is full"));
  EXPECT_EQ(Phase(run, "child").skip_reason(), "upstream phase 'bad' failed");
  EXPECT_EQ(Phase(run, "grandchild").skip_reason(), "upstream phase 'bad' failed");
  EXPECT_EQ(Phase(run, "side").state(), v1::TASK_STATE_COMPLETED);
}

TEST_F(TaskflowTest, OptionalPhase_FailureLetsDependentsRunWithEmptyOutput) {
  v1::Run run = Run(R"(
name: optional
phases:
  - id: extra
    agent: echo
    optional: true
    task: "fail not needed"
  - id: main
    agent: echo
    dependsOn: [extra]
    task: "echo [{steps.extra.output}]"
)");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  EXPECT_EQ(Phase(run, "extra").state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(run.output(), "[]\n");
}

TEST_F(TaskflowTest, Retries_SecondAttemptSucceeds) {
  v1::Run run = Run(R"(
name: retrying
phases:
  - id: flaky
    agent: echo
    retries: 2
    task: "fail-once recovered"
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  EXPECT_EQ(run.output(), "recovered\n");
  ASSERT_EQ(run.tasks_size(), 1);
  EXPECT_EQ(run.tasks(0).attempt(), 2);
}

TEST_F(TaskflowTest, Timeout_FailsTheTaskWithAClearError) {
  v1::Run run = Run(R"(
name: slow
phases:
  - id: slow
    agent: echo
    timeoutSeconds: 1
    task: "sleep 30 too late"
)");
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << cluster_.Logs();
  EXPECT_THAT(run.error(), HasSubstr("timed out after 1s"));
}

TEST_F(TaskflowTest, Cancel_StopsARunningRun) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: long
phases:
  - id: long
    agent: echo
    task: "sleep 60 never"
  - id: after
    agent: echo
    dependsOn: [long]
    task: "echo never"
)");
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster_
                  .WaitUntil(*run_id,
                             [](const v1::Run& run) {
                               return run.tasks_size() > 0 &&
                                      run.tasks(0).state() == v1::TASK_STATE_RUNNING;
                             })
                  .status(),
              IsOk());
  v1::CancelRunRequest request;
  request.set_run_id(*run_id);
  request.set_reason("changed my mind");
  v1::CancelRunResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_.client().CancelRun(&context, request, &response).ok());
  EXPECT_EQ(response.status(), v1::RUN_STATUS_CANCELLED);
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_CANCELLED);
  EXPECT_EQ(Phase(*run, "after").state(), v1::TASK_STATE_CANCELLED);
}

TEST_F(TaskflowTest, Resume_ReusesDonePhasesAndRerunsTheFailedOne) {
  // `second` fails until the marker file exists; resume after creating it.
  std::string marker = (cluster_.dir() / "ready").string();
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: resumable
args:
  marker: {}
phases:
  - id: first
    agent: echo
    task: "echo first"
  - id: second
    agent: echo
    dependsOn: [first]
    task: "need {args.marker} second after {steps.first.output}"
)",
                                                       Json{{"marker", marker}});
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> failed = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(failed.status(), IsOk());
  ASSERT_EQ(failed->status(), v1::RUN_STATUS_FAILED) << cluster_.Logs();
  EXPECT_THAT(failed->error(), HasSubstr("does not exist yet"));

  std::ofstream(marker) << "ok";
  v1::ResumeRunRequest request;
  request.set_run_id(*run_id);
  v1::ResumeRunResponse response;
  grpc::ClientContext context;
  grpc::Status status = cluster_.client().ResumeRun(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_THAT(response.reused_phases(), ::testing::ElementsAre("first"));
  absl::StatusOr<v1::Run> resumed = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(resumed.status(), IsOk());
  EXPECT_EQ(resumed->status(), v1::RUN_STATUS_COMPLETED) << resumed->error() << cluster_.Logs();
  EXPECT_EQ(resumed->output(), "second after first\n\n");
  for (const v1::Task& task : resumed->tasks()) {
    // The reused phase kept its one and only execution.
    if (task.task_id() == "first") EXPECT_EQ(task.attempt(), 1);
  }
}

TEST_F(TaskflowTest, InvalidFlow_ReturnsEveryErrorInTheStatusDetails) {
  v1::SubmitRunRequest request;
  request.mutable_source()->set_text(R"({"name": "bad", "phases": [
    {"id": "a", "agent": "echo"},
    {"id": "b", "dependsOn": ["missing"], "task": "x"}]})");
  v1::SubmitRunResponse response;
  grpc::ClientContext context;
  grpc::Status status = cluster_.client().SubmitRun(&context, request, &response);
  ASSERT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  google::rpc::Status details;
  ASSERT_TRUE(details.ParseFromString(status.error_details()));
  ASSERT_EQ(details.details_size(), 1);
  v1::FlowErrors errors;
  ASSERT_TRUE(details.details(0).UnpackTo(&errors));
  EXPECT_GE(errors.errors_size(), 2);
  std::string all;
  for (const v1::FlowError& error : errors.errors()) absl::StrAppend(&all, error.path(), ": ",
                                                                     error.message(), "\n");
  EXPECT_THAT(all, HasSubstr("phases[0]"));
  EXPECT_THAT(all, HasSubstr("missing"));
}

TEST_F(TaskflowTest, OversizedArgs_AreRejectedAndNothingIsStored) {
  std::string big(300 * 1024, 'x');
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: big-args
args:
  blob: {}
phases:
  - id: a
    agent: echo
    task: "echo {args.blob}"
)",
                                                       Json{{"blob", big}});
  EXPECT_THAT(run_id.status(), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(std::string(run_id.status().message()), HasSubstr("--max-args-bytes"));
  v1::ListRunsRequest request;
  v1::ListRunsResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_.client().ListRuns(&context, request, &response).ok());
  EXPECT_EQ(response.runs_size(), 0);
}

}  // namespace
}  // namespace taskboard
