// The engine's approval events and metrics (EngineHarness): an approval
// that starts waiting and is decided reaches the notifier once each, after
// the commit, with the flow's approvalWebhook; a restart announces the
// still-waiting one again (same wait, so the same delivery id) and the
// pending gauge is right again; a child run's approvals go to its root
// run's webhook; a run cancelled while one waits sends approval.cancelled.

#include <optional>
#include <string>
#include <vector>

#include "common/metrics/registry.h"
#include "common/metrics/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/state/task_states.h"
#include "tests/testing/prometheus_text.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::Optional;
using ::testing::SizeIs;

constexpr char kFlow[] = R"({"name": "release",
    "approvalWebhook": "https://hooks.example.com/team-a",
    "phases": [{"id": "ok", "type": "approval", "prompt": "Ship?", "timeoutSeconds": 60,
                "onTimeout": "fail"}]})";

class RecordingNotifier : public ApprovalNotifier {
 public:
  void Notify(ApprovalEvent event) override { events.push_back(std::move(event)); }
  std::vector<ApprovalEvent> events;
};

class ApprovalNotifyEngineTest : public ::testing::Test {
 protected:
  EngineOptions Options() {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.approval_notifier = &notifier_;
    options.approval_metrics = &metrics_;
    return options;
  }
  std::optional<double> Sample(const std::string& series) {
    return taskboard::testing::SampleValue(metrics::SerializeTextFormat(registry_.Collect()),
                                           series);
  }

  RecordingNotifier notifier_;
  metrics::Registry registry_;
  ApprovalMetrics metrics_{registry_};
};

TEST_F(ApprovalNotifyEngineTest, WaitingThenDecided_EachOnceWithTheFlowsWebhook) {
  EngineHarness h(Options());
  std::string run_id = h.Submit(kFlow);
  ASSERT_THAT(notifier_.events, SizeIs(1));
  const ApprovalEvent& waiting = notifier_.events[0];
  EXPECT_EQ(waiting.kind, ApprovalEvent::Kind::kWaiting);
  EXPECT_EQ(waiting.run_id, run_id);
  EXPECT_EQ(waiting.step_id, "ok");
  EXPECT_EQ(waiting.flow_name, "release");
  EXPECT_EQ(waiting.flow_webhook, "https://hooks.example.com/team-a");
  EXPECT_EQ(waiting.approval.prompt(), "Ship?");
  EXPECT_TRUE(waiting.approval.has_deadline());
  EXPECT_THAT(Sample(R"(taskboard_approvals_pending{tenant=""})"), Optional(1.0));

  h.Advance(10'000);
  EXPECT_THAT(notifier_.events, SizeIs(1)) << "nothing new while it waits";
  EXPECT_THAT(Sample("taskboard_approval_oldest_pending_seconds"), Optional(10.0));

  std::optional<absl::StatusOr<v1::Task>> decided;
  ApprovalAnswer answer;
  answer.decision = "reject";
  answer.comment = "not now";
  h.engine().DecideApproval(run_id, "ok", answer, Approver{"alice", false, false},
                            [&](absl::StatusOr<v1::Task> task) { decided = std::move(task); });
  h.RunOnce();
  ASSERT_TRUE(decided.has_value() && decided->ok());
  ASSERT_THAT(notifier_.events, SizeIs(2));
  const ApprovalEvent& made = notifier_.events[1];
  EXPECT_EQ(made.kind, ApprovalEvent::Kind::kDecided);
  EXPECT_EQ(made.approval.decision().decision(), "reject");
  EXPECT_EQ(made.approval.decision().comment(), "not now");
  EXPECT_EQ(made.approval.decision().decided_by(), "alice");
  EXPECT_THAT(Sample(R"(taskboard_approvals_pending{tenant=""})"), Optional(0.0));
  EXPECT_THAT(Sample(R"(taskboard_approvals_decided_total{decision="reject"})"), Optional(1.0));
  EXPECT_THAT(Sample("taskboard_approval_wait_seconds_sum"), Optional(10.0));
}

TEST_F(ApprovalNotifyEngineTest, TimeoutFail_DecidedEvent) {
  EngineHarness h(Options());
  h.Submit(kFlow);
  h.Advance(60'000);
  ASSERT_THAT(notifier_.events, SizeIs(2));
  EXPECT_EQ(notifier_.events[1].kind, ApprovalEvent::Kind::kDecided);
  EXPECT_EQ(notifier_.events[1].approval.decision().decision(), "fail");
  EXPECT_THAT(Sample(R"(taskboard_approvals_decided_total{decision="timeout_fail"})"),
              Optional(1.0));
}

TEST_F(ApprovalNotifyEngineTest, RunCancelledWhileWaiting_CancelledEventNotADecision) {
  EngineHarness h(Options());
  std::string run_id = h.Submit(kFlow);
  ASSERT_THAT(notifier_.events, SizeIs(1));
  h.Advance(5'000);
  ASSERT_TRUE(h.Cancel(run_id, "release postponed").ok());
  ASSERT_THAT(notifier_.events, SizeIs(2));
  const ApprovalEvent& cancelled = notifier_.events[1];
  EXPECT_EQ(cancelled.kind, ApprovalEvent::Kind::kCancelled);
  EXPECT_EQ(cancelled.run_id, run_id);
  EXPECT_EQ(cancelled.step_id, "ok");
  EXPECT_EQ(cancelled.flow_webhook, "https://hooks.example.com/team-a");
  EXPECT_THAT(cancelled.reason, ::testing::HasSubstr("release postponed"));
  EXPECT_FALSE(cancelled.approval.has_decision());
  EXPECT_THAT(Sample(R"(taskboard_approvals_pending{tenant=""})"), Optional(0.0));
  EXPECT_EQ(Sample(R"(taskboard_approvals_decided_total{decision="reject"})").value_or(0), 0);
}

TEST_F(ApprovalNotifyEngineTest, Restart_AnnouncedAgainWithTheSameWait_GaugeRecomputed) {
  EngineHarness h(Options());
  std::string run_id = h.Submit(kFlow);
  ASSERT_THAT(notifier_.events, SizeIs(1));
  const int64_t since = ToUnixMs(notifier_.events[0].approval.waiting_since());

  // A new process: new metrics, as the scheduler's would be.
  metrics::Registry fresh_registry;
  ApprovalMetrics fresh_metrics(fresh_registry);
  RecordingNotifier fresh_notifier;
  EngineOptions options = Options();
  options.approval_notifier = &fresh_notifier;
  options.approval_metrics = &fresh_metrics;
  EngineHarness restarted(options);
  restarted.store_override = &h.store();
  restarted.Restart();
  restarted.clock().Advance(h.clock().NowMs() - restarted.clock().NowMs() + 5'000);
  restarted.RunOnce();
  ASSERT_THAT(fresh_notifier.events, SizeIs(1));
  EXPECT_EQ(fresh_notifier.events[0].kind, ApprovalEvent::Kind::kWaiting);
  EXPECT_EQ(fresh_notifier.events[0].run_id, run_id);
  EXPECT_EQ(ToUnixMs(fresh_notifier.events[0].approval.waiting_since()), since);
  EXPECT_EQ(fresh_notifier.events[0].flow_webhook, "https://hooks.example.com/team-a");
  EXPECT_THAT(
      taskboard::testing::SampleValue(metrics::SerializeTextFormat(fresh_registry.Collect()),
                                      R"(taskboard_approvals_pending{tenant=""})"),
      Optional(1.0));
}

TEST_F(ApprovalNotifyEngineTest, ChildRun_UsesItsRootRunsWebhook) {
  EngineHarness h(Options());
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(R"({"name": "plan",
      "kind": "plan_and_execute", "approvalWebhook": "https://hooks.example.com/root",
      "planAndExecute": {"goal": "g", "plannerAgent": "planner", "synthesizerAgent": "planner",
                         "stepExecutor": {"flow": "stepper"}}})");
  // As intake resolves `stepExecutor: {flow}`: a saved flow naming its own webhook.
  *request.spec.mutable_plan_and_execute()->mutable_step_flow_spec() =
      taskboard::testing::LoadValidFlow(R"({"name": "stepper",
          "approvalWebhook": "https://elsewhere.example.com/",
          "args": {"goal": {"required": true}},
          "phases": [{"id": "ok", "type": "approval", "prompt": "Do {args.goal}?"}]})");
  std::optional<absl::StatusOr<SubmitResult>> submitted;
  h.engine().Submit(std::move(request),
                    [&](absl::StatusOr<SubmitResult> result) { submitted = result; });
  h.RunOnce();
  ASSERT_TRUE(submitted.has_value() && submitted->ok());
  TestWorker worker = h.Connect("w1", {"planner"});
  h.Finish(worker, h.OnlyAssignment(worker), true,
           R"({"tasks": [{"id": "s1", "goal": "step one"}]})");
  ASSERT_THAT(notifier_.events, SizeIs(1));
  const ApprovalEvent& waiting = notifier_.events[0];
  EXPECT_NE(waiting.run_id, (*submitted)->run_id) << "the approval is the child run's";
  EXPECT_EQ(waiting.flow_name, "stepper");
  EXPECT_EQ(waiting.approval.prompt(), "Do step one?");
  EXPECT_EQ(waiting.flow_webhook, "https://hooks.example.com/root");
}

}  // namespace
}  // namespace taskboard::engine
