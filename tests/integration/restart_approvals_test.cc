// Approvals with real processes (docs/approvals.md): a run waiting for a
// person holds no worker slot and survives a SIGKILL of the scheduler; after
// the restart the approval is still listed, DecideApproval answers it and
// the run completes with the form value interpolated downstream.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

constexpr char kFlow[] = R"(name: approve-restart
phases:
  - id: build
    agent: echo
    task: echo built
  - id: ok
    type: approval
    prompt: "Release {steps.build.output}?"
    form: [{name: version, required: true}]
    dependsOn: [build]
  - id: ship
    agent: echo
    task: "echo shipping {steps.ok.json.values.version}"
    dependsOn: [ok]
)";

class ApprovalsTest : public testing::ClusterTest {};

bool Waiting(const v1::Run& run) {
  for (const v1::Task& task : run.tasks()) {
    if (task.task_id() == "ok" && task.state() == v1::TASK_STATE_RUNNING) return true;
  }
  return false;
}

TEST_F(ApprovalsTest, SchedulerKilledWhileWaiting_RestartApproveCompletes) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(kFlow);
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster_.WaitUntil(*run_id, Waiting).status(), IsOk());

  cluster_.KillScheduler(SIGKILL);
  ASSERT_THAT(cluster_.StartScheduler(), IsOk());

  v1::ListApprovalsResponse listed;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(cluster_.client().ListApprovals(&context, {}, &listed).ok());
  }
  ASSERT_EQ(listed.approvals_size(), 1);
  EXPECT_EQ(listed.approvals(0).run_id(), *run_id);
  EXPECT_EQ(listed.approvals(0).step_id(), "ok");
  EXPECT_THAT(listed.approvals(0).approval().prompt(), HasSubstr("Release built"));

  v1::DecideApprovalRequest request;
  request.set_run_id(*run_id);
  request.set_step_id("ok");
  request.set_decision("approve");
  request.set_comment("go");
  v1::DecideApprovalResponse response;
  {
    // A required form value missing: INVALID_ARGUMENT naming it.
    grpc::ClientContext context;
    grpc::Status missing = cluster_.client().DecideApproval(&context, request, &response);
    EXPECT_EQ(missing.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(missing.error_message(), HasSubstr("version"));
  }
  (*request.mutable_values())["version"] = "2.0";
  {
    grpc::ClientContext context;
    grpc::Status decided = cluster_.client().DecideApproval(&context, request, &response);
    ASSERT_TRUE(decided.ok()) << decided.error_message();
  }
  EXPECT_EQ(response.task().approval().decision().decided_by(), "local");

  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();
  EXPECT_THAT(run->output(), HasSubstr("shipping 2.0"));

  {
    // Deciding again: FAILED_PRECONDITION naming who decided first.
    grpc::ClientContext context;
    grpc::Status again = cluster_.client().DecideApproval(&context, request, &response);
    EXPECT_EQ(again.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(again.error_message(), HasSubstr("by 'local'"));
  }
}

}  // namespace
}  // namespace taskboard
