// RunTraces on made-up committed events (traces/run_traces.h): which spans a
// run's events give, their parents and attributes, the attempt's events,
// and that an unsampled run gives nothing and keeps nothing.

#include "scheduler/engine/traces/run_traces.h"

#include <string>
#include <vector>

#include "common/otel/tracer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/run_trace.h"
#include "tests/unit/engine/traces/recording_span_sink.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EventNames;
using ::taskboard::engine::testing::IntAttribute;
using ::taskboard::engine::testing::RecordingSpanSink;
using ::taskboard::engine::testing::StringAttribute;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr int64_t kSecond = 1'000'000'000;

class RunTracesTest : public ::testing::Test {
 protected:
  RunTracesTest() {
    run_.run_id = "r1";
    run_.root_run_id = "r1";
    run_.flow_name = "board";
    run_.kind = v1::FLOW_KIND_BOARD;
    run_.created_unix_ms = 1'000;
    run_.trace = NewRunTrace(otel::Sampler(), nullptr);
  }

  static v1::RunEvent At(int64_t seconds) {
    v1::RunEvent event;
    event.mutable_ts()->set_seconds(seconds);
    return event;
  }
  static v1::RunEvent TaskAt(int64_t seconds, const std::string& id, v1::TaskState state,
                             int attempt) {
    v1::RunEvent event = At(seconds);
    v1::Task& task = *event.mutable_task_change()->mutable_task();
    task.set_task_id(id);
    task.set_state(state);
    task.set_attempt(attempt);
    task.set_agent("coder");
    if (state != v1::TASK_STATE_READY) task.set_worker_id("w1");
    if (state == v1::TASK_STATE_FAILED || state == v1::TASK_STATE_RETRYING) task.set_error("boom");
    return event;
  }
  static v1::RunEvent Finished(int64_t seconds, v1::RunStatus status) {
    v1::RunEvent event = At(seconds);
    event.mutable_run_finished()->set_status(status);
    return event;
  }
  // Each event as a commit of its own.
  void Commit(const std::vector<v1::RunEvent>& events) {
    for (const v1::RunEvent& event : events) traces_.OnCommitted(run_, {event});
  }

  RecordingSpanSink sink_;
  otel::Tracer tracer_{otel::Sampler(), &sink_};
  RunTraces traces_{&tracer_};
  TracedRun run_;
};

TEST_F(RunTracesTest, OneAttempt_QueuedDispatchedRunningAsEventsUnderTheRunSpan) {
  v1::RunEvent started = At(10);
  started.mutable_run_started()->set_status(v1::RUN_STATUS_RUNNING);
  Commit({started, TaskAt(11, "t1", v1::TASK_STATE_READY, 0),
          TaskAt(12, "t1", v1::TASK_STATE_DISPATCHED, 1),
          TaskAt(13, "t1", v1::TASK_STATE_RUNNING, 1),
          TaskAt(15, "t1", v1::TASK_STATE_COMPLETED, 1),
          Finished(16, v1::RUN_STATUS_COMPLETED)});
  const auto attempts = sink_.Named("task.attempt");
  const auto runs = sink_.Named("run board");
  ASSERT_THAT(attempts, SizeIs(1));
  ASSERT_THAT(runs, SizeIs(1));
  const otel::SpanData& attempt = attempts[0];
  EXPECT_EQ(attempt.context.span_id, AttemptSpanContext(run_.trace, "t1", 1).span_id);
  EXPECT_EQ(attempt.parent_span_id, runs[0].context.span_id);
  EXPECT_EQ(attempt.start_unix_nanos, 11 * kSecond);
  EXPECT_EQ(attempt.end_unix_nanos, 15 * kSecond);
  EXPECT_THAT(EventNames(attempt), ElementsAre("queued", "dispatched", "running"));
  EXPECT_EQ(attempt.events[1].time_unix_nanos, 12 * kSecond);
  EXPECT_EQ(StringAttribute(attempt, "gen_ai.agent.name"), "coder");
  EXPECT_EQ(StringAttribute(attempt, "taskboard.outcome"), "completed");
  EXPECT_EQ(runs[0].start_unix_nanos, 10 * kSecond);
  EXPECT_EQ(runs[0].end_unix_nanos, 16 * kSecond);
  EXPECT_EQ(StringAttribute(runs[0], "taskboard.kind"), "board");
  EXPECT_EQ(traces_.open_runs(), 0u) << "a finished run keeps nothing";
}

TEST_F(RunTracesTest, RetriedTask_OneSpanPerAttempt_TheFailedOneAnError) {
  Commit({TaskAt(1, "t1", v1::TASK_STATE_READY, 0), TaskAt(2, "t1", v1::TASK_STATE_RUNNING, 1),
          TaskAt(3, "t1", v1::TASK_STATE_RETRYING, 1), TaskAt(4, "t1", v1::TASK_STATE_READY, 1),
          TaskAt(5, "t1", v1::TASK_STATE_DISPATCHED, 2),
          TaskAt(6, "t1", v1::TASK_STATE_COMPLETED, 2)});
  const auto attempts = sink_.Named("task.attempt");
  ASSERT_THAT(attempts, SizeIs(2));
  EXPECT_EQ(IntAttribute(attempts[0], "taskboard.attempt"), 1);
  EXPECT_EQ(attempts[0].status, otel::SpanStatusCode::kError);
  EXPECT_EQ(attempts[0].status_message, "boom");
  EXPECT_EQ(StringAttribute(attempts[0], "taskboard.outcome"), "retrying");
  EXPECT_EQ(IntAttribute(attempts[1], "taskboard.attempt"), 2);
  EXPECT_EQ(attempts[1].start_unix_nanos, 4 * kSecond) << "the second attempt's queue time";
  EXPECT_NE(attempts[0].context.span_id, attempts[1].context.span_id);
}

TEST_F(RunTracesTest, AttemptSeenOnlyAtItsEnd_StillGetsItsSpanOnce) {
  // After a restart, or when it ran within one batch: only the end is seen.
  v1::RunEvent done = TaskAt(9, "t1", v1::TASK_STATE_COMPLETED, 1);
  done.mutable_task_change()->mutable_task()->mutable_started_at()->set_seconds(7);
  Commit({done, done});
  const auto attempts = sink_.Named("task.attempt");
  ASSERT_THAT(attempts, SizeIs(1));
  EXPECT_EQ(attempts[0].start_unix_nanos, 7 * kSecond);
  EXPECT_THAT(EventNames(attempts[0]), ElementsAre("running"));
}

TEST_F(RunTracesTest, TaskflowPhase_IsTheParentOfItsTasks) {
  run_.kind = v1::FLOW_KIND_TASKFLOW;
  v1::RunEvent ready = TaskAt(1, "a", v1::TASK_STATE_READY, 0);
  v1::RunEvent done = TaskAt(3, "a", v1::TASK_STATE_FAILED, 1);
  ready.mutable_task_change()->mutable_task()->set_phase_id("a");
  done.mutable_task_change()->mutable_task()->set_phase_id("a");
  v1::RunEvent phase = At(3);
  v1::PhaseStatus& status = *phase.mutable_phase_change()->mutable_phase();
  status.set_phase_id("a");
  status.set_state(v1::TASK_STATE_FAILED);
  status.mutable_started_at()->set_seconds(1);
  status.mutable_finished_at()->set_seconds(3);
  Commit({ready, done, phase, Finished(4, v1::RUN_STATUS_FAILED)});
  const auto phases = sink_.Named("phase a");
  const auto attempts = sink_.Named("task.attempt");
  const auto runs = sink_.Named("run board");
  ASSERT_THAT(phases, SizeIs(1));
  ASSERT_THAT(attempts, SizeIs(1));
  ASSERT_THAT(runs, SizeIs(1));
  EXPECT_EQ(attempts[0].parent_span_id, phases[0].context.span_id);
  EXPECT_EQ(phases[0].parent_span_id, runs[0].context.span_id);
  EXPECT_EQ(phases[0].status, otel::SpanStatusCode::kError);
  EXPECT_EQ(runs[0].status, otel::SpanStatusCode::kError);
}

// A run past its deadline (docs/semantics.md#run-deadlines) is an error in
// the trace, as a failed one; a cancelled one is not.
TEST_F(RunTracesTest, RunSpanStatus_TimedOutIsAnError_CancelledIsUnset) {
  v1::RunEvent timed_out = Finished(4, v1::RUN_STATUS_TIMED_OUT);
  timed_out.mutable_run_finished()->set_error("run deadline of 60 s passed");
  Commit({TaskAt(1, "a", v1::TASK_STATE_READY, 0), timed_out});
  auto runs = sink_.Named("run board");
  ASSERT_THAT(runs, SizeIs(1));
  EXPECT_EQ(runs[0].status, otel::SpanStatusCode::kError);

  run_.run_id = "r2";
  run_.root_run_id = "r2";
  Commit({TaskAt(1, "a", v1::TASK_STATE_READY, 0), Finished(4, v1::RUN_STATUS_CANCELLED)});
  runs = sink_.Named("run board");
  ASSERT_THAT(runs, SizeIs(2));
  EXPECT_EQ(runs[1].status, otel::SpanStatusCode::kUnset);
}

TEST_F(RunTracesTest, ApprovalWait_FromWaitingSinceToTheDecision) {
  v1::RunEvent waiting = At(1);
  v1::Task& task = *waiting.mutable_task_change()->mutable_task();
  task.set_task_id("ok");
  task.set_state(v1::TASK_STATE_RUNNING);
  task.mutable_approval()->mutable_waiting_since()->set_seconds(1);
  v1::RunEvent decided = waiting;
  v1::Task& later = *decided.mutable_task_change()->mutable_task();
  later.set_state(v1::TASK_STATE_COMPLETED);
  later.mutable_approval()->mutable_decision()->set_decision("approve");
  later.mutable_approval()->mutable_decision()->set_decided_by("alice");
  later.mutable_approval()->mutable_decision()->mutable_decided_at()->set_seconds(5);
  Commit({waiting, decided, decided});
  const auto waits = sink_.Named("approval.wait");
  ASSERT_THAT(waits, SizeIs(1));
  EXPECT_EQ(waits[0].start_unix_nanos, 1 * kSecond);
  EXPECT_EQ(waits[0].end_unix_nanos, 5 * kSecond);
  EXPECT_EQ(StringAttribute(waits[0], "taskboard.approval.decision"), "approve");
  EXPECT_EQ(StringAttribute(waits[0], "taskboard.approval.decided_by"), "alice");
  EXPECT_THAT(sink_.Named("task.attempt"), IsEmpty());
}

TEST_F(RunTracesTest, PatternStages_OneSpanPerStage) {
  v1::RunEvent planning = At(1);
  planning.mutable_board_meta()->set_phase("planning");
  v1::RunEvent active = At(4);
  active.mutable_board_meta()->set_phase("active");
  Commit({planning, active, Finished(9, v1::RUN_STATUS_COMPLETED)});
  const auto planned = sink_.Named("pattern.stage planning");
  const auto acted = sink_.Named("pattern.stage active");
  ASSERT_THAT(planned, SizeIs(1));
  ASSERT_THAT(acted, SizeIs(1));
  EXPECT_EQ(planned[0].end_unix_nanos, 4 * kSecond);
  EXPECT_EQ(acted[0].end_unix_nanos, 9 * kSecond);
  EXPECT_EQ(acted[0].parent_span_id, RunSpanContext(run_.trace).span_id);
}

TEST_F(RunTracesTest, PriorWorkSelection_IsASpanUnderTheAttempt) {
  v1::PriorWorkMeta meta;
  meta.set_policy("recent_trajectory");
  meta.set_selected(3);
  meta.set_available(7);
  traces_.PriorWorkChosen(run_.trace, "t1", 2, meta, 1'000, 1'050);
  const auto selections = sink_.Named("prior_work.select");
  ASSERT_THAT(selections, SizeIs(1));
  EXPECT_EQ(selections[0].parent_span_id, AttemptSpanContext(run_.trace, "t1", 2).span_id);
  EXPECT_EQ(StringAttribute(selections[0], "taskboard.prior_work.policy"), "recent_trajectory");
  EXPECT_EQ(IntAttribute(selections[0], "taskboard.prior_work.selected"), 3);
  EXPECT_EQ(IntAttribute(selections[0], "taskboard.prior_work.available"), 7);
  EXPECT_EQ(selections[0].end_unix_nanos - selections[0].start_unix_nanos, 50'000);
}

TEST_F(RunTracesTest, UnsampledRun_NoSpansAndNothingKept) {
  run_.trace.set_sampled(false);
  Commit({TaskAt(1, "t1", v1::TASK_STATE_READY, 0), TaskAt(2, "t1", v1::TASK_STATE_RUNNING, 1)});
  traces_.PriorWorkChosen(run_.trace, "t1", 1, v1::PriorWorkMeta(), 1, 2);
  EXPECT_EQ(traces_.open_runs(), 0u);
  Commit({TaskAt(3, "t1", v1::TASK_STATE_COMPLETED, 1), Finished(4, v1::RUN_STATUS_COMPLETED)});
  EXPECT_THAT(sink_.spans(), IsEmpty());
}

TEST(RunTraceIds, DerivedIds_AreStableAndDistinct) {
  const store::RunTrace trace = NewRunTrace(otel::Sampler(), nullptr);
  EXPECT_EQ(AttemptSpanContext(trace, "t1", 1).span_id, AttemptSpanContext(trace, "t1", 1).span_id);
  EXPECT_NE(AttemptSpanContext(trace, "t1", 1).span_id, AttemptSpanContext(trace, "t1", 2).span_id);
  EXPECT_NE(AttemptSpanContext(trace, "t1", 1).span_id, AttemptSpanContext(trace, "t11", 1).span_id);
  EXPECT_NE(PhaseSpanContext(trace, "a").span_id, RunSpanContext(trace).span_id);
  store::RunTrace resumed = trace;
  RenewRunSpan(resumed);
  EXPECT_EQ(RunSpanContext(resumed).trace_id, RunSpanContext(trace).trace_id);
  EXPECT_NE(AttemptSpanContext(resumed, "t1", 1).span_id,
            AttemptSpanContext(trace, "t1", 1).span_id);
}

TEST(RunTraceIds, NewRunTrace_FollowsTheParentsDecision) {
  otel::SpanContext parent{.trace_id = otel::NewTraceId(), .span_id = otel::NewSpanId()};
  const otel::Sampler always({.parent_based = true, .ratio = 1.0});
  EXPECT_FALSE(NewRunTrace(always, &parent).sampled());
  parent.trace_flags = otel::kSampledFlag;
  const otel::Sampler never({.parent_based = true, .ratio = 0.0});
  const store::RunTrace child = NewRunTrace(never, &parent);
  EXPECT_TRUE(child.sampled());
  EXPECT_EQ(RunParentSpanId(child), parent.span_id);
  EXPECT_EQ(RunSpanContext(child).trace_id, parent.trace_id);
  EXPECT_FALSE(NewRunTrace(never, nullptr).sampled());
}

}  // namespace
}  // namespace taskboard::engine
