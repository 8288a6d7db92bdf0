#ifndef TASKBOARD_WORKER_AGENTS_TASK_TRACE_H_
#define TASKBOARD_WORKER_AGENTS_TASK_TRACE_H_

// The trace one task attempt belongs to (docs/observability.md#worker-spans):
// the worker's tracer and the context of the attempt's span, under which the
// attempt's LLM calls and tool calls make their spans and which a command
// agent gets as TRACEPARENT. The session lends one to an attempt whose
// assignment carried a valid traceparent (AgentContext::trace); an attempt
// without one has none and makes no spans at all.
//
// Thread-safe: StartChild may be called from any thread of the attempt.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/otel/span.h"
#include "common/otel/span_context.h"
#include "common/otel/tracer.h"

namespace taskboard::worker {

class TaskTrace {
 public:
  // `tracer` must outlive this. `capture_content`: the attempt's LLM spans
  // may carry prompt and completion text (the worker's flag and the
  // tenant's switch both said yes).
  TaskTrace(const otel::Tracer& tracer, otel::SpanContext attempt, bool capture_content = false)
      : tracer_(tracer), attempt_(std::move(attempt)), capture_content_(capture_content) {}

  // The attempt span's context: recorded when the scheduler sampled the run
  // and this worker exports, else the context passed through (tracer.h).
  const otel::SpanContext& attempt() const { return attempt_; }

  // Whether LLM spans put prompt and completion text on
  // (docs/observability.md#prompt-and-completion-content).
  bool capture_content() const { return capture_content_; }

  // A child of the attempt span; recording only when the attempt is sampled
  // and tracing is on (parent-based sampling, docs/observability.md#sampling).
  // `start` InfinitePast (the default): now.
  otel::Span StartChild(absl::string_view name, otel::SpanKind kind = otel::SpanKind::kInternal,
                        absl::Time start = absl::InfinitePast()) const {
    return tracer_.StartSpan(name, &attempt_, kind, start);
  }

  // TRACEPARENT, and TRACESTATE when the trace has one: the OpenTelemetry
  // environment carrier, for programs whose own SDK joins the trace.
  std::vector<std::pair<std::string, std::string>> Environment() const;

 private:
  const otel::Tracer& tracer_;
  const otel::SpanContext attempt_;
  const bool capture_content_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_TASK_TRACE_H_
