// ApprovalWatch: which committed task changes become webhook events, and
// what the approval metrics read (pending by tenant, oldest age, decisions,
// waiting time).

#include "scheduler/engine/approvals/approval_watch.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/metrics/registry.h"
#include "common/metrics/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"
#include "tests/testing/prometheus_text.h"

namespace taskboard::engine {
namespace {

using ::testing::Optional;

constexpr int64_t kStart = 1'700'000'000'000;

store::TaskRecord Waiting(const std::string& id, int64_t since_ms, int64_t timeout_s = 0,
                          v1::ApprovalOnTimeout on_timeout = v1::APPROVAL_ON_TIMEOUT_REJECT) {
  store::TaskRecord task;
  task.mutable_task()->set_task_id(id);
  task.mutable_task()->set_role(kApprovalRole);
  v1::Phase phase;
  phase.mutable_approval()->set_on_timeout(on_timeout);
  DescribeApproval(task, phase, "go?");
  StartWaiting(task, timeout_s, since_ms);
  return task;
}

ApprovalRun RunOf(const std::string& run_id, const std::string& tenant = "acme") {
  return {run_id, "release", tenant, "https://hooks.example.com/a"};
}

class ApprovalWatchTest : public ::testing::Test {
 protected:
  std::string Metrics() { return metrics::SerializeTextFormat(registry_.Collect()); }
  std::optional<double> Sample(const std::string& series) {
    return taskboard::testing::SampleValue(Metrics(), series);
  }

  metrics::Registry registry_;
  ApprovalMetrics metrics_{registry_};
  ApprovalWatch watch_{&metrics_};
};

TEST_F(ApprovalWatchTest, StartsWaiting_WaitingEventOnce) {
  store::TaskRecord task = Waiting("ok", kStart);
  std::optional<ApprovalEvent> event = watch_.Observe(RunOf("r1"), task, kStart);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind, ApprovalEvent::Kind::kWaiting);
  EXPECT_EQ(event->run_id, "r1");
  EXPECT_EQ(event->step_id, "ok");
  EXPECT_EQ(event->flow_name, "release");
  EXPECT_EQ(event->tenant, "acme");
  EXPECT_EQ(event->flow_webhook, "https://hooks.example.com/a");
  EXPECT_EQ(event->approval.prompt(), "go?");
  // Committed again while still waiting: nothing new to say.
  EXPECT_FALSE(watch_.Observe(RunOf("r1"), task, kStart + 10).has_value());
  EXPECT_EQ(watch_.pending(), 1u);
}

TEST_F(ApprovalWatchTest, Decided_DecidedEventCountedWithItsWait) {
  store::TaskRecord task = Waiting("ok", kStart);
  watch_.Observe(RunOf("r1"), task, kStart);
  ApprovalAnswer answer;
  answer.decision = "approve";
  ASSERT_TRUE(Decide(task, answer, "alice", kStart + 90'000).ok());
  std::optional<ApprovalEvent> event = watch_.Observe(RunOf("r1"), task, kStart + 90'000);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind, ApprovalEvent::Kind::kDecided);
  EXPECT_EQ(event->approval.decision().decided_by(), "alice");
  EXPECT_EQ(watch_.pending(), 0u);
  EXPECT_THAT(Sample(R"(taskboard_approvals_decided_total{decision="approve"})"), Optional(1.0));
  EXPECT_THAT(Sample(R"(taskboard_approvals_decided_total{decision="reject"})"), Optional(0.0));
  EXPECT_THAT(Sample("taskboard_approval_wait_seconds_sum"), Optional(90.0));
  EXPECT_THAT(Sample("taskboard_approval_wait_seconds_count"), Optional(1.0));
  // Seen again (another commit of the decided task): no second event.
  EXPECT_FALSE(watch_.Observe(RunOf("r1"), task, kStart + 95'000).has_value());
}

TEST_F(ApprovalWatchTest, TimeoutFail_DecidedAsFailByTimeout) {
  store::TaskRecord task = Waiting("ok", kStart, 60, v1::APPROVAL_ON_TIMEOUT_FAIL);
  watch_.Observe(RunOf("r1"), task, kStart);
  DecideOnTimeout(task, kStart + 60'000);
  std::optional<ApprovalEvent> event = watch_.Observe(RunOf("r1"), task, kStart + 60'000);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->approval.decision().decision(), "fail");
  EXPECT_EQ(event->approval.decision().decided_by(), "timeout");
  EXPECT_THAT(event->approval.decision().comment(), ::testing::HasSubstr("timeoutSeconds"));
  EXPECT_THAT(Sample(R"(taskboard_approvals_decided_total{decision="timeout_fail"})"),
              Optional(1.0));
}

TEST_F(ApprovalWatchTest, TimeoutReject_CountedAsTimeoutReject) {
  store::TaskRecord task = Waiting("ok", kStart, 60);
  watch_.Observe(RunOf("r1"), task, kStart);
  DecideOnTimeout(task, kStart + 60'000);
  ASSERT_TRUE(watch_.Observe(RunOf("r1"), task, kStart + 60'000).has_value());
  EXPECT_THAT(Sample(R"(taskboard_approvals_decided_total{decision="timeout_reject"})"),
              Optional(1.0));
}

TEST_F(ApprovalWatchTest, Cancelled_CancelledEventNotCountedNoLongerPending) {
  store::TaskRecord task = Waiting("ok", kStart);
  watch_.Observe(RunOf("r1"), task, kStart);
  MarkCancelled(task, "run cancelled", kStart + 1'000);
  std::optional<ApprovalEvent> event = watch_.Observe(RunOf("r1"), task, kStart + 1'000);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind, ApprovalEvent::Kind::kCancelled);
  EXPECT_EQ(ApprovalEventName(event->kind), "approval.cancelled");
  EXPECT_THAT(event->reason, ::testing::HasSubstr("run cancelled"));
  EXPECT_EQ(event->ended_unix_ms, kStart + 1'000);
  EXPECT_EQ(watch_.pending(), 0u);
  // Not a decision: nothing counted under any decision label.
  for (const char* label : {"approve", "reject", "timeout_reject", "timeout_fail"}) {
    EXPECT_EQ(
        Sample(absl::StrCat(R"(taskboard_approvals_decided_total{decision=")", label, R"("})"))
            .value_or(0),
        0)
        << label;
  }
  // Seen again after it ended: no second event.
  EXPECT_FALSE(watch_.Observe(RunOf("r1"), task, kStart + 2'000).has_value());
}

TEST_F(ApprovalWatchTest, FailedBeforeItsDeadline_CancelledNotTimedOut) {
  // A waiting approval whose task failed for another reason than its
  // timeout (e.g. the run failed elsewhere) was not decided by the timeout.
  store::TaskRecord task = Waiting("ok", kStart, 60, v1::APPROVAL_ON_TIMEOUT_FAIL);
  watch_.Observe(RunOf("r1"), task, kStart);
  task.mutable_task()->set_state(v1::TASK_STATE_FAILED);
  task.mutable_task()->set_error("run failed: phase 'build' failed");
  std::optional<ApprovalEvent> event = watch_.Observe(RunOf("r1"), task, kStart + 1'000);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind, ApprovalEvent::Kind::kCancelled);
  EXPECT_EQ(event->reason, "run failed: phase 'build' failed");
}

TEST_F(ApprovalWatchTest, AskedAgainAfterResume_WaitingAgain) {
  store::TaskRecord task = Waiting("ok", kStart);
  watch_.Observe(RunOf("r1"), task, kStart);
  store::TaskRecord again = Waiting("ok", kStart + 5'000);
  std::optional<ApprovalEvent> event = watch_.Observe(RunOf("r1"), again, kStart + 5'000);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->kind, ApprovalEvent::Kind::kWaiting);
}

TEST_F(ApprovalWatchTest, Gauges_PendingByTenantAndOldestAge_BackToZero) {
  watch_.Observe(RunOf("r1", "acme"), Waiting("a", kStart), kStart);
  watch_.Observe(RunOf("r1", "acme"), Waiting("b", kStart + 10'000), kStart + 10'000);
  watch_.Observe(RunOf("r2", "globex"), Waiting("c", kStart + 20'000), kStart + 20'000);
  watch_.UpdateGauges(kStart + 30'000);
  EXPECT_THAT(Sample(R"(taskboard_approvals_pending{tenant="acme"})"), Optional(2.0));
  EXPECT_THAT(Sample(R"(taskboard_approvals_pending{tenant="globex"})"), Optional(1.0));
  EXPECT_THAT(Sample("taskboard_approval_oldest_pending_seconds"), Optional(30.0));

  watch_.ForgetRun("r1");
  watch_.Forget("r2", "c");
  watch_.UpdateGauges(kStart + 40'000);
  EXPECT_THAT(Sample(R"(taskboard_approvals_pending{tenant="acme"})"), Optional(0.0));
  EXPECT_THAT(Sample(R"(taskboard_approvals_pending{tenant="globex"})"), Optional(0.0));
  EXPECT_THAT(Sample("taskboard_approval_oldest_pending_seconds"), Optional(0.0));
}

TEST_F(ApprovalWatchTest, NotAnApprovalTask_Ignored) {
  store::TaskRecord task;
  task.mutable_task()->set_task_id("build");
  task.mutable_task()->set_state(v1::TASK_STATE_RUNNING);
  EXPECT_FALSE(watch_.Observe(RunOf("r1"), task, kStart).has_value());
  EXPECT_EQ(watch_.pending(), 0u);
}

}  // namespace
}  // namespace taskboard::engine
