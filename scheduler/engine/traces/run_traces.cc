#include "scheduler/engine/traces/run_traces.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "scheduler/engine/state/run_trace.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {
namespace {

int64_t Nanos(const google::protobuf::Timestamp& ts) {
  return ts.seconds() * 1'000'000'000 + ts.nanos();
}

absl::Time AtNanos(int64_t nanos) { return absl::FromUnixNanos(nanos); }

// The first of `times` that is set (non-zero), else `fallback`.
int64_t FirstSet(std::initializer_list<int64_t> times, int64_t fallback) {
  for (int64_t time : times) {
    if (time > 0) return time;
  }
  return fallback;
}

bool Terminal(v1::TaskState state) {
  return state == v1::TASK_STATE_COMPLETED || state == v1::TASK_STATE_FAILED ||
         state == v1::TASK_STATE_CANCELLED || state == v1::TASK_STATE_SKIPPED;
}

bool InFlight(v1::TaskState state) {
  return state == v1::TASK_STATE_DISPATCHED || state == v1::TASK_STATE_RUNNING;
}

// How an attempt ended, from the state its task went to: "completed",
// "failed", "retrying" (failed, to be tried again), "cancelled", or
// "requeued" (its lease was lost or handed back).
std::string AttemptOutcomeName(v1::TaskState state) {
  if (state == v1::TASK_STATE_READY || state == v1::TASK_STATE_PENDING) return "requeued";
  return TaskStateWord(state);
}

void SetRunAttributes(otel::Span& span, const TracedRun& run) {
  span.SetAttribute("taskboard.run_id", run.run_id)
      .SetAttribute("taskboard.root_run_id", run.root_run_id);
}

}  // namespace

TracedRun TracedRunOf(const store::RunRecord& record) {
  TracedRun run;
  run.trace = record.trace();
  run.run_id = record.run().run_id();
  run.root_run_id = record.run().root_run_id();
  run.parent_run_id = record.run().parent_run_id();
  run.flow_name = record.run().flow_name();
  run.kind = record.run().kind();
  run.tenant = record.tenant();
  run.created_unix_ms = record.created_unix_ms();
  return run;
}

bool RunTraces::Records(const store::RunTrace& trace) const {
  return tracer_ != nullptr && tracer_->enabled() && trace.sampled() && IsTraced(trace);
}

void RunTraces::OnCommitted(const TracedRun& run, const std::vector<v1::RunEvent>& events) {
  if (!Records(run.trace)) return;
  OpenRun& open = runs_[run.run_id];
  for (const v1::RunEvent& event : events) {
    const int64_t at = Nanos(event.ts());
    switch (event.event_case()) {
      case v1::RunEvent::kRunStarted:
        open.started = at;
        break;
      case v1::RunEvent::kTasksCreated:
        for (const v1::Task& task : event.tasks_created().tasks()) OnTask(run, open, task, at);
        break;
      case v1::RunEvent::kTaskChange:
        OnTask(run, open, event.task_change().task(), at);
        break;
      case v1::RunEvent::kPhaseChange:
        OnPhase(run, event.phase_change().phase(), at);
        break;
      case v1::RunEvent::kBoardMeta:
        if (event.board_meta().phase() != open.stage ||
            event.board_meta().iteration() != open.stage_iteration) {
          EndStage(run, open, at);
          open.stage = event.board_meta().phase();
          open.stage_iteration = event.board_meta().iteration();
          open.stage_since = at;
        }
        break;
      case v1::RunEvent::kRunFinished:
        EndStage(run, open, at);
        EmitRun(run, open, event.run_finished(), at);
        runs_.erase(run.run_id);
        return;  // nothing of the run's follows its end
      default:
        break;
    }
  }
}

void RunTraces::OnTask(const TracedRun& run, OpenRun& open, const v1::Task& task, int64_t at) {
  if (task.has_approval()) {
    const bool decided = task.approval().has_decision() || Terminal(task.state());
    if (decided && task.approval().has_waiting_since()) {
      TaskTimes& times = open.tasks[task.task_id()];
      if (!times.approval_emitted) EmitApproval(run, task, at);
      times.approval_emitted = true;
    }
    return;
  }
  const v1::TaskState state = task.state();
  auto found = open.tasks.find(task.task_id());
  if (state == v1::TASK_STATE_PENDING && found == open.tasks.end()) return;  // nothing yet
  TaskTimes& times = found != open.tasks.end() ? found->second : open.tasks[task.task_id()];
  const bool known_in_flight = times.attempt > 0 && times.attempt > times.emitted_attempt;
  if (InFlight(state)) {
    if (task.attempt() != times.attempt) {
      // A new attempt: the queue time seen for it stays, the rest is its own.
      times.attempt = task.attempt();
      times.dispatched = 0;
      times.running = 0;
    }
    if (state == v1::TASK_STATE_DISPATCHED && times.dispatched == 0) times.dispatched = at;
    if (state == v1::TASK_STATE_RUNNING && times.running == 0) {
      times.running = task.has_started_at() ? Nanos(task.started_at()) : at;
      if (times.dispatched == 0 && task.child_run_id().empty()) times.dispatched = at;
    }
    return;
  }
  // The attempt in flight ended (or, unseen by this process, an attempt
  // ended with this change: after a restart, or within one batch).
  const int32_t attempt = std::max(task.attempt(), times.attempt);
  const bool ended_unseen =
      !known_in_flight && !task.reused() && attempt > times.emitted_attempt && attempt > 0 &&
      (state == v1::TASK_STATE_COMPLETED || state == v1::TASK_STATE_FAILED ||
       state == v1::TASK_STATE_RETRYING ||
       (state == v1::TASK_STATE_CANCELLED && !task.worker_id().empty()));
  if (known_in_flight || ended_unseen) {
    EmitAttempt(run, task, times, attempt, at);
    times.emitted_attempt = attempt;
    times.queued = 0;
    times.dispatched = 0;
    times.running = 0;
  }
  if (state == v1::TASK_STATE_READY) times.queued = at;
  // A finished task keeps its entry (the last attempt emitted) until the run
  // ends, so a later change of it does not make its span again.
}

void RunTraces::EmitAttempt(const TracedRun& run, const v1::Task& task, const TaskTimes& times,
                            int32_t attempt, int64_t end) {
  const otel::SpanContext context = AttemptSpanContext(run.trace, task.task_id(), attempt);
  const bool under_phase = run.kind == v1::FLOW_KIND_TASKFLOW && !task.phase_id().empty();
  const otel::SpanId parent = under_phase ? PhaseSpanContext(run.trace, task.phase_id()).span_id
                                          : RunSpanContext(run.trace).span_id;
  const int64_t started = task.has_started_at() ? Nanos(task.started_at()) : 0;
  const int64_t start = FirstSet({times.queued, times.dispatched, times.running, started}, end);
  otel::Span span = tracer_->StartSpanWithContext("task.attempt", context, parent, false,
                                                  otel::SpanKind::kProducer, AtNanos(start));
  SetRunAttributes(span, run);
  span.SetAttribute("taskboard.task_id", task.task_id())
      .SetAttribute("taskboard.attempt", attempt)
      .SetAttribute("taskboard.outcome", AttemptOutcomeName(task.state()));
  if (!task.phase_id().empty()) span.SetAttribute("taskboard.phase_id", task.phase_id());
  if (!task.role().empty()) span.SetAttribute("taskboard.role", task.role());
  if (!task.agent().empty()) span.SetAttribute("gen_ai.agent.name", task.agent());
  if (!task.worker_id().empty()) span.SetAttribute("taskboard.worker_id", task.worker_id());
  if (!task.child_run_id().empty()) {
    span.SetAttribute("taskboard.child_run_id", task.child_run_id());
  }
  if (times.queued > 0) span.AddEvent("queued", {}, AtNanos(times.queued));
  if (times.dispatched > 0) span.AddEvent("dispatched", {}, AtNanos(times.dispatched));
  const int64_t running = FirstSet({times.running, started}, 0);
  if (running > 0) span.AddEvent("running", {}, AtNanos(running));
  if (task.state() == v1::TASK_STATE_FAILED || task.state() == v1::TASK_STATE_RETRYING) {
    span.SetStatus(otel::SpanStatusCode::kError, task.error());
  } else if (task.state() == v1::TASK_STATE_COMPLETED) {
    span.SetStatus(otel::SpanStatusCode::kOk);
  }
  span.End(AtNanos(std::max(start, end)));
}

void RunTraces::EmitApproval(const TracedRun& run, const v1::Task& task, int64_t at) {
  const v1::TaskApproval& approval = task.approval();
  const int64_t start = Nanos(approval.waiting_since());
  const int64_t end = approval.decision().has_decided_at()
                          ? Nanos(approval.decision().decided_at())
                          : at;
  // Derived from the task as attempt 0, which no dispatched attempt has.
  const otel::SpanContext context = AttemptSpanContext(run.trace, task.task_id(), 0);
  const bool under_phase = run.kind == v1::FLOW_KIND_TASKFLOW && !task.phase_id().empty();
  const otel::SpanId parent = under_phase ? PhaseSpanContext(run.trace, task.phase_id()).span_id
                                          : RunSpanContext(run.trace).span_id;
  otel::Span span = tracer_->StartSpanWithContext("approval.wait", context, parent, false,
                                                  otel::SpanKind::kInternal, AtNanos(start));
  SetRunAttributes(span, run);
  span.SetAttribute("taskboard.task_id", task.task_id());
  if (!task.phase_id().empty()) span.SetAttribute("taskboard.phase_id", task.phase_id());
  if (approval.has_decision()) {
    span.SetAttribute("taskboard.approval.decision", approval.decision().decision())
        .SetAttribute("taskboard.approval.decided_by", approval.decision().decided_by());
  } else {
    span.SetAttribute("taskboard.approval.decision", TaskStateWord(task.state()));
  }
  span.End(AtNanos(std::max(start, end)));
}

void RunTraces::OnPhase(const TracedRun& run, const v1::PhaseStatus& phase, int64_t at) {
  if (!Terminal(phase.state()) || !phase.has_started_at()) return;
  const int64_t start = Nanos(phase.started_at());
  const int64_t end = phase.has_finished_at() ? Nanos(phase.finished_at()) : at;
  otel::Span span = tracer_->StartSpanWithContext(
      absl::StrCat("phase ", phase.phase_id()), PhaseSpanContext(run.trace, phase.phase_id()),
      RunSpanContext(run.trace).span_id, false, otel::SpanKind::kInternal, AtNanos(start));
  SetRunAttributes(span, run);
  span.SetAttribute("taskboard.phase_id", phase.phase_id())
      .SetAttribute("taskboard.phase_type",
                    absl::AsciiStrToLower(v1::PhaseType_Name(phase.type())))
      .SetAttribute("taskboard.outcome", TaskStateWord(phase.state()));
  if (phase.items_total() > 0) {
    span.SetAttribute("taskboard.items_total", phase.items_total())
        .SetAttribute("taskboard.items_failed", phase.items_failed());
  }
  if (phase.state() == v1::TASK_STATE_FAILED) {
    span.SetStatus(otel::SpanStatusCode::kError, absl::StrCat("phase '", phase.phase_id(),
                                                              "' failed"));
  }
  span.End(AtNanos(std::max(start, end)));
}

void RunTraces::EndStage(const TracedRun& run, OpenRun& open, int64_t at) {
  if (open.stage.empty()) return;
  otel::SpanContext context = RunSpanContext(run.trace);
  // A fresh id: a stage's span is made whole here, and nothing points at it.
  context.span_id = otel::NewSpanId();
  otel::Span span = tracer_->StartSpanWithContext(
      absl::StrCat("pattern.stage ", open.stage), context, RunSpanContext(run.trace).span_id,
      false, otel::SpanKind::kInternal, AtNanos(open.stage_since));
  SetRunAttributes(span, run);
  span.SetAttribute("taskboard.pattern.stage", open.stage)
      .SetAttribute("taskboard.pattern.iteration", open.stage_iteration);
  span.End(AtNanos(std::max(open.stage_since, at)));
  open.stage.clear();
}

void RunTraces::EmitRun(const TracedRun& run, const OpenRun& open, const v1::RunFinished& finished,
                        int64_t at) {
  const int64_t start = FirstSet({open.started}, run.created_unix_ms * 1'000'000);
  otel::Span span = tracer_->StartSpanWithContext(
      run.flow_name.empty() ? std::string("run") : absl::StrCat("run ", run.flow_name),
      RunSpanContext(run.trace), RunParentSpanId(run.trace), run.trace.parent_remote(),
      otel::SpanKind::kInternal, AtNanos(start));
  SetRunAttributes(span, run);
  std::string kind = v1::FlowKind_Name(run.kind);
  kind = kind.substr(std::min(kind.size(), sizeof("FLOW_KIND_") - 1));
  span.SetAttribute("taskboard.flow", run.flow_name)
      .SetAttribute("taskboard.kind", absl::AsciiStrToLower(kind))
      .SetAttribute("taskboard.run.status", RunStatusWord(finished.status()));
  if (!run.parent_run_id.empty()) span.SetAttribute("taskboard.parent_run_id", run.parent_run_id);
  if (!run.tenant.empty()) span.SetAttribute("taskboard.tenant", run.tenant);
  if (finished.has_usage()) {
    span.SetAttribute("gen_ai.usage.input_tokens", finished.usage().input_tokens())
        .SetAttribute("gen_ai.usage.output_tokens", finished.usage().output_tokens())
        .SetAttribute("taskboard.llm.cost", finished.usage().cost_usd());
  }
  // A run past its deadline did not do its work: an error to whoever reads
  // the trace, as a failed one (a cancelled run was stopped on purpose).
  if (finished.status() == v1::RUN_STATUS_FAILED ||
      finished.status() == v1::RUN_STATUS_TIMED_OUT) {
    span.SetStatus(otel::SpanStatusCode::kError, finished.error());
  } else if (finished.status() == v1::RUN_STATUS_COMPLETED) {
    span.SetStatus(otel::SpanStatusCode::kOk);
  }
  span.End(AtNanos(std::max(start, at)));
}

void RunTraces::PriorWorkChosen(const store::RunTrace& trace, const std::string& task_id,
                                int32_t attempt, const v1::PriorWorkMeta& meta, int64_t start_us,
                                int64_t end_us) const {
  if (!Records(trace)) return;
  otel::SpanContext context = RunSpanContext(trace);
  context.span_id = otel::NewSpanId();
  otel::Span span = tracer_->StartSpanWithContext(
      "prior_work.select", context, AttemptSpanContext(trace, task_id, attempt).span_id, false,
      otel::SpanKind::kInternal, absl::FromUnixMicros(start_us));
  span.SetAttribute("taskboard.task_id", task_id)
      .SetAttribute("taskboard.attempt", attempt)
      .SetAttribute("taskboard.prior_work.policy", meta.policy())
      .SetAttribute("taskboard.prior_work.selected", static_cast<int64_t>(meta.selected()))
      .SetAttribute("taskboard.prior_work.available", meta.available());
  if (!meta.fallback_reason().empty()) {
    span.SetAttribute("taskboard.prior_work.fallback_reason", meta.fallback_reason());
  }
  span.End(absl::FromUnixMicros(std::max(start_us, end_us)));
}

}  // namespace taskboard::engine
