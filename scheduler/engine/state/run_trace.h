#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_TRACE_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_TRACE_H_

// A run's place in a trace (docs/observability.md#scheduler-spans): the
// context stored with the run (store::RunTrace) and the span contexts
// derived from it. Only the run span's id is drawn at random and stored;
// a phase's and a task attempt's span ids are a hash of it and of what
// names them, so the dispatcher (which puts the attempt's context in the
// assignment) and the trace component (which emits the span once the
// attempt ends) agree on them without sharing state, across a restart or a
// failover too (decision 181). Pure functions; thread-safe.

#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/otel/sampler.h"
#include "common/otel/span_context.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::engine {

// A new run's trace: a child of `parent` when it is valid (the SubmitRun
// caller's span, or the parent task's attempt span for a child run), else a
// new trace, sampled as `sampler` decides for a span with that parent. The
// decision is kept for every span of the run.
store::RunTrace NewRunTrace(const otel::Sampler& sampler, const otel::SpanContext* parent);

// ResumeRun: a new run span in the same trace, under the same parent and
// with the same decision, so the resumed run's spans do not reuse the ids of
// the first run span's.
void RenewRunSpan(store::RunTrace& trace);

// Whether `trace` holds a valid context (runs started with tracing off, or
// before it existed, hold none).
bool IsTraced(const store::RunTrace& trace);

// The run span's context; its parent span id (invalid for a root).
otel::SpanContext RunSpanContext(const store::RunTrace& trace);
otel::SpanId RunParentSpanId(const store::RunTrace& trace);

// The span of taskflow phase `phase_id` and of attempt `attempt` of
// `task_id`: ids derived from the run span's, flags and tracestate the
// run's.
otel::SpanContext PhaseSpanContext(const store::RunTrace& trace, absl::string_view phase_id);
otel::SpanContext AttemptSpanContext(const store::RunTrace& trace, absl::string_view task_id,
                                     int32_t attempt);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_TRACE_H_
