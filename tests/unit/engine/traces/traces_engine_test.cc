// The scheduler's spans through the whole engine (docs/observability.md#scheduler-spans):
// a SubmitRun traceparent makes the run span its child, the assignment
// names the attempt's span, the sampling decision holds for every span of
// the run, and a restarted engine keeps the run in the same trace.

#include <optional>
#include <string>

#include "common/otel/traceparent.h"
#include "common/otel/tracer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/run_trace.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/traces/recording_span_sink.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::EventNames;
using ::taskboard::engine::testing::IntAttribute;
using ::taskboard::engine::testing::RecordingSpanSink;
using ::taskboard::engine::testing::StringAttribute;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kOnePhase[] = R"({"name": "review", "phases": [{"id": "a", "task": "hi",
                                 "agent": "coder"}]})";

// A caller's span, as a client SDK's traceparent gives it.
otel::SpanContext CallerSpan(bool sampled) {
  absl::StatusOr<otel::SpanContext> parsed =
      otel::ParseTraceparent(sampled ? "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                                     : "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return *parsed;
}

class TracesEngineTest : public ::testing::Test {
 protected:
  explicit TracesEngineTest(double ratio = 1.0)
      : tracer_(otel::Sampler({.parent_based = true, .ratio = ratio}), &sink_) {}

  EngineOptions Options() {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.tracer = &tracer_;
    return options;
  }

  std::string Submit(EngineHarness& h, absl::string_view flow,
                     std::optional<otel::SpanContext> parent, const std::string& tenant = "") {
    SubmitRequest request;
    request.spec = taskboard::testing::LoadValidFlow(flow);
    request.trace_parent = std::move(parent);
    request.tenant = tenant;
    std::optional<absl::StatusOr<SubmitResult>> result;
    h.engine().Submit(std::move(request), [&](absl::StatusOr<SubmitResult> r) { result = r; });
    h.RunOnce();
    EXPECT_TRUE(result.has_value() && result->ok());
    return result.has_value() && result->ok() ? (*result)->run_id : "";
  }

  store::RunTrace StoredTrace(EngineHarness& h, const std::string& run_id) {
    absl::StatusOr<store::RunRecord> record = ReadRunRecord(h.store(), run_id);
    EXPECT_TRUE(record.ok()) << record.status();
    return record.ok() ? record->trace() : store::RunTrace();
  }

  RecordingSpanSink sink_;
  otel::Tracer tracer_;
};

TEST_F(TracesEngineTest, CallersTraceparent_RunUnderCaller_PhaseUnderRun_AttemptNamedInAssignment) {
  EngineHarness h(Options());
  const otel::SpanContext caller = CallerSpan(true);
  const std::string run_id = Submit(h, kOnePhase, caller);
  TestWorker worker = h.Connect("w1", {"coder"});
  const v1::Assignment assignment = h.OnlyAssignment(worker);
  absl::StatusOr<otel::SpanContext> sent = otel::ParseTraceparent(assignment.traceparent());
  ASSERT_TRUE(sent.ok()) << "assignment.traceparent: '" << assignment.traceparent() << "'";
  EXPECT_EQ(sent->trace_id, caller.trace_id);
  EXPECT_TRUE(sent->sampled());
  h.Finish(worker, assignment, true, "done");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);

  const auto runs = sink_.Named("run review");
  const auto phases = sink_.Named("phase a");
  const auto attempts = sink_.Named("task.attempt");
  ASSERT_THAT(runs, SizeIs(1));
  ASSERT_THAT(phases, SizeIs(1));
  ASSERT_THAT(attempts, SizeIs(1));
  const otel::SpanData& run = runs[0];
  EXPECT_EQ(run.context.trace_id, caller.trace_id);
  EXPECT_EQ(run.parent_span_id, caller.span_id);
  EXPECT_TRUE(run.parent_remote);
  EXPECT_EQ(run.status, otel::SpanStatusCode::kOk);
  EXPECT_EQ(StringAttribute(run, "taskboard.run_id"), run_id);
  EXPECT_EQ(StringAttribute(run, "taskboard.run.status"), "completed");
  EXPECT_EQ(run.context.span_id, RunSpanContext(StoredTrace(h, run_id)).span_id);
  EXPECT_EQ(phases[0].parent_span_id, run.context.span_id);
  const otel::SpanData& attempt = attempts[0];
  EXPECT_EQ(attempt.context.span_id, sent->span_id) << "the worker's parent is this span";
  EXPECT_EQ(attempt.parent_span_id, phases[0].context.span_id);
  EXPECT_EQ(attempt.kind, otel::SpanKind::kProducer);
  EXPECT_EQ(StringAttribute(attempt, "taskboard.task_id"), assignment.task_id());
  EXPECT_EQ(IntAttribute(attempt, "taskboard.attempt"), 1);
  EXPECT_EQ(StringAttribute(attempt, "taskboard.worker_id"), "w1");
  EXPECT_EQ(StringAttribute(attempt, "taskboard.outcome"), "completed");
  EXPECT_THAT(EventNames(attempt), ElementsAre("queued", "dispatched", "running"));
  for (const otel::SpanData& span : sink_.spans()) {
    EXPECT_EQ(span.context.trace_id, caller.trace_id) << span.name;
  }
}

TEST_F(TracesEngineTest, FailedRun_RunAndAttemptSpansAreErrors) {
  EngineHarness h(Options());
  const std::string run_id = Submit(h, kOnePhase, std::nullopt);
  TestWorker worker = h.Connect("w1", {"coder"});
  v1::Assignment assignment = h.OnlyAssignment(worker);
  // Agent failures are retried; fail every attempt until the run fails.
  for (int i = 0; i < 10 && h.Status(run_id) == v1::RUN_STATUS_RUNNING; ++i) {
    h.Finish(worker, assignment, false, "boom");
    h.Advance(60'000);
    std::vector<v1::Assignment> next = h.TakeAssignments(worker);
    if (next.empty()) break;
    assignment = next.front();
  }
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_FAILED);
  const auto runs = sink_.Named("run review");
  ASSERT_THAT(runs, SizeIs(1));
  EXPECT_EQ(runs[0].status, otel::SpanStatusCode::kError);
  EXPECT_FALSE(runs[0].parent_span_id.IsValid()) << "no caller: the run is the trace's root";
  const auto attempts = sink_.Named("task.attempt");
  ASSERT_FALSE(attempts.empty());
  for (const otel::SpanData& attempt : attempts) {
    EXPECT_EQ(attempt.status, otel::SpanStatusCode::kError);
    EXPECT_THAT(attempt.status_message, HasSubstr("boom"));
  }
  // Each attempt its own span.
  EXPECT_EQ(IntAttribute(attempts.back(), "taskboard.attempt"),
            static_cast<int64_t>(attempts.size()));
}

TEST_F(TracesEngineTest, UnsampledCaller_NothingRecorded_AssignmentCarriesTheUnsampledContext) {
  EngineHarness h(Options());
  const std::string run_id = Submit(h, kOnePhase, CallerSpan(false));
  TestWorker worker = h.Connect("w1", {"coder"});
  const v1::Assignment assignment = h.OnlyAssignment(worker);
  absl::StatusOr<otel::SpanContext> sent = otel::ParseTraceparent(assignment.traceparent());
  ASSERT_TRUE(sent.ok());
  EXPECT_FALSE(sent->sampled()) << "the caller's decision holds for the worker too";
  h.Finish(worker, assignment, true, "done");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(sink_.spans(), IsEmpty());
}

TEST_F(TracesEngineTest, AfterARestart_TheRunsSpansStayInItsTrace) {
  EngineHarness h(Options());
  const otel::SpanContext caller = CallerSpan(true);
  const std::string run_id = Submit(h, kOnePhase, caller);
  const store::RunTrace before = StoredTrace(h, run_id);
  h.Restart();
  TestWorker worker = h.Connect("w1", {"coder"});
  const v1::Assignment assignment = h.OnlyAssignment(worker);
  h.Finish(worker, assignment, true, "done");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  const auto runs = sink_.Named("run review");
  ASSERT_THAT(runs, SizeIs(1));
  EXPECT_EQ(runs[0].context.trace_id, caller.trace_id);
  EXPECT_EQ(runs[0].context.span_id, RunSpanContext(before).span_id);
  EXPECT_EQ(runs[0].parent_span_id, caller.span_id);
  const auto attempts = sink_.Named("task.attempt");
  ASSERT_THAT(attempts, SizeIs(1));
  EXPECT_EQ(attempts[0].context.span_id,
            AttemptSpanContext(before, assignment.task_id(), 1).span_id);
}

// A `type: plan` phase: its task is carried out by a child plan-and-execute
// run (docs/flow-dsl.md), planned by `lead`, its steps run by `dev`.
constexpr char kPlanPhase[] = R"({"name": "p", "phases": [
    {"id": "report", "type": "plan", "agent": "dev", "task": "Write a report",
     "plan": {"plannerAgent": "lead"}}]})";

TEST_F(TracesEngineTest, ChildRun_RunSpanUnderItsParentTasksAttempt_InTheCallersTrace) {
  EngineHarness h(Options());
  const otel::SpanContext caller = CallerSpan(true);
  const std::string parent_id = Submit(h, kPlanPhase, caller);
  const std::string child_id = h.ReadRunView(parent_id).tasks(0).child_run_id();
  ASSERT_FALSE(child_id.empty());
  TestWorker worker = h.Connect("w1", {"dev", "lead"}, 4);
  // The child's planner plans one step, which `dev` runs; every other task
  // (a synthesizer, if any) just answers.
  for (int i = 0; i < 10 && h.Status(parent_id) == v1::RUN_STATUS_RUNNING; ++i) {
    for (const v1::Assignment& a : h.TakeAssignments(worker)) {
      EXPECT_EQ(a.run_id(), child_id) << "only the child's tasks go to workers";
      h.Finish(
          worker, a, true,
          a.task_id() == "planner" ? R"({"tasks": [{"id": "s1", "goal": "Draft it"}]})" : "done");
    }
  }
  ASSERT_EQ(h.Status(parent_id), v1::RUN_STATUS_COMPLETED);

  const otel::SpanData* parent_attempt = nullptr;
  const otel::SpanData* child_run = nullptr;
  const std::vector<otel::SpanData> spans = sink_.spans();
  for (const otel::SpanData& span : spans) {
    if (span.name == "task.attempt" && StringAttribute(span, "taskboard.task_id") == "report") {
      parent_attempt = &span;
    }
    if (span.name.rfind("run ", 0) == 0 && StringAttribute(span, "taskboard.run_id") == child_id) {
      child_run = &span;
    }
  }
  ASSERT_NE(parent_attempt, nullptr) << "no attempt span for the parent's task";
  ASSERT_NE(child_run, nullptr) << "no run span for the child run";
  EXPECT_EQ(StringAttribute(*parent_attempt, "taskboard.child_run_id"), child_id);
  EXPECT_EQ(child_run->parent_span_id, parent_attempt->context.span_id)
      << "the child run nests under the attempt of the task it carries out";
  EXPECT_EQ(parent_attempt->context.span_id,
            AttemptSpanContext(StoredTrace(h, parent_id), "report", 1).span_id);
  EXPECT_FALSE(child_run->parent_remote);
  // The child run's own tasks are in the same trace, under its phases.
  for (const otel::SpanData& span : spans) {
    EXPECT_EQ(span.context.trace_id, caller.trace_id) << span.name;
  }
  EXPECT_EQ(RunParentSpanId(StoredTrace(h, child_id)), parent_attempt->context.span_id);
}

TEST_F(TracesEngineTest, TraceContentAllowed_UnlessTheRunsTenantTurnsItOffInTheLimits) {
  EngineOptions options = Options();
  absl::StatusOr<governance::LlmLimits> limits =
      governance::ParseLlmLimits("tenants: {private: {traceContent: false}}");
  ASSERT_TRUE(limits.ok()) << limits.status();
  options.llm_limits = *limits;
  EngineHarness h(options);
  TestWorker worker = h.Connect("w1", {"coder"});
  for (const auto& [tenant, allowed] :
       std::vector<std::pair<std::string, bool>>{{"private", false}, {"open", true}, {"", true}}) {
    const std::string run_id = Submit(h, kOnePhase, CallerSpan(true), tenant);
    const v1::Assignment assignment = h.OnlyAssignment(worker);
    EXPECT_FALSE(assignment.traceparent().empty());
    EXPECT_EQ(assignment.trace_content_allowed(), allowed) << "tenant '" << tenant << "'";
    h.Finish(worker, assignment, true, "done");
    ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  }
  // A reload turning it off holds for the next assignment.
  governance::LlmLimits closed = *limits;
  closed.tenants["open"].trace_content = false;
  h.engine().SetLlmLimits(closed);
  h.RunOnce();
  Submit(h, kOnePhase, CallerSpan(true), "open");
  EXPECT_FALSE(h.OnlyAssignment(worker).trace_content_allowed());
}

TEST(TracesEngineOff, NoTracer_NoTraceContextAndNoTraceparent) {
  EngineHarness h;
  TestWorker worker = h.Connect("w1", {"coder"});
  const std::string run_id = h.Submit(kOnePhase);
  const v1::Assignment assignment = h.OnlyAssignment(worker);
  EXPECT_EQ(assignment.traceparent(), "");
  absl::StatusOr<store::RunRecord> record = ReadRunRecord(h.store(), run_id);
  ASSERT_TRUE(record.ok());
  EXPECT_FALSE(record->has_trace());
}

class TracesEngineRatioZeroTest : public TracesEngineTest {
 protected:
  TracesEngineRatioZeroTest() : TracesEngineTest(0.0) {}
};

TEST_F(TracesEngineRatioZeroTest, RatioZero_NoSpans_ButTheContextStillFlows) {
  EngineHarness h(Options());
  const std::string run_id = Submit(h, kOnePhase, std::nullopt);
  TestWorker worker = h.Connect("w1", {"coder"});
  const v1::Assignment assignment = h.OnlyAssignment(worker);
  absl::StatusOr<otel::SpanContext> sent = otel::ParseTraceparent(assignment.traceparent());
  ASSERT_TRUE(sent.ok());
  EXPECT_FALSE(sent->sampled());
  h.Finish(worker, assignment, true, "done");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(sink_.spans(), IsEmpty());
}

TEST_F(TracesEngineRatioZeroTest, RatioZero_ASampledCallerIsStillFollowed) {
  EngineHarness h(Options());
  const std::string run_id = Submit(h, kOnePhase, CallerSpan(true));
  TestWorker worker = h.Connect("w1", {"coder"});
  h.Finish(worker, h.OnlyAssignment(worker), true, "done");
  ASSERT_EQ(h.Status(run_id), v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(sink_.Named("run review"), SizeIs(1));
}

}  // namespace
}  // namespace taskboard::engine
