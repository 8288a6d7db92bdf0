#include "worker/session/attempt_trace.h"

#include <optional>

#include "common/otel/span_context.h"
#include "common/otel/traceparent.h"

namespace taskboard::worker {

AttemptTrace::AttemptTrace(const otel::Tracer& tracer, const v1::Assignment& assignment,
                           bool capture_content) {
  if (assignment.traceparent().empty()) return;
  std::optional<otel::SpanContext> parent = otel::ExtractTraceContext(assignment.traceparent(), "");
  if (!parent.has_value()) return;  // W3C: ignored; the worker starts no trace of its own
  // Consumer: the scheduler's dispatch produced it, this worker takes it up
  // (OpenTelemetry's messaging kinds; the scheduler's span does not wait).
  span_ = tracer.StartSpan("task.attempt", &*parent, otel::SpanKind::kConsumer);
  span_.SetAttribute("taskboard.run_id", assignment.run_id())
      .SetAttribute("taskboard.root_run_id", assignment.root_run_id())
      .SetAttribute("taskboard.task_id", assignment.task_id())
      .SetAttribute("taskboard.attempt", assignment.attempt())
      .SetAttribute("taskboard.lease_id", assignment.lease_id())
      .SetAttribute("gen_ai.agent.name", assignment.agent());
  if (!assignment.phase_id().empty())
    span_.SetAttribute("taskboard.phase_id", assignment.phase_id());
  if (!assignment.role().empty()) span_.SetAttribute("taskboard.role", assignment.role());
  if (!assignment.model().empty()) {
    span_.SetAttribute("gen_ai.request.model", assignment.model());
  }
  // The tenant's off switch (the scheduler's answer) wins over the flag
  // (docs/observability.md#prompt-and-completion-content).
  trace_.emplace(tracer, span_.context(), capture_content && assignment.trace_content_allowed());
}

AttemptTrace::~AttemptTrace() {
  if (span_.recording()) {
    span_.SetStatus(otel::SpanStatusCode::kError, "the attempt ended without an outcome");
    span_.End();
  }
}

void AttemptTrace::End(const AgentOutcome& outcome, bool cancelled) {
  if (!span_.recording()) return;
  span_.SetAttribute("taskboard.outcome",
                     outcome.success ? "succeeded" : (cancelled ? "cancelled" : "failed"));
  if (outcome.usage.input_tokens() > 0 || outcome.usage.output_tokens() > 0) {
    span_.SetAttribute("gen_ai.usage.input_tokens", outcome.usage.input_tokens())
        .SetAttribute("gen_ai.usage.output_tokens", outcome.usage.output_tokens())
        .SetAttribute("taskboard.llm.cost", outcome.usage.cost_usd());
  }
  if (outcome.success) {
    span_.SetStatus(otel::SpanStatusCode::kOk);
  } else {
    span_.SetStatus(otel::SpanStatusCode::kError, outcome.error);
  }
  span_.End();
}

}  // namespace taskboard::worker
