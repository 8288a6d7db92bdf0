#ifndef TASKBOARD_WORKER_SESSION_ATTEMPT_TRACE_H_
#define TASKBOARD_WORKER_SESSION_ATTEMPT_TRACE_H_

// The `task.attempt` span of one assignment (docs/observability.md#worker-spans):
// a child of the scheduler's span the assignment's traceparent names, with
// the run, task, attempt and agent as attributes, and the TaskTrace the
// attempt's LLM and tool calls and its command agent hang under.
//
// Parent-based (docs/decisions.md, decision 169): an assignment without a
// valid traceparent gets no span and no TaskTrace, so a worker never starts
// a trace of its own and the scheduler's sampling decision holds for every
// span of a run. An unsampled traceparent gives a TaskTrace whose spans
// record nothing but which still passes the context on (TRACEPARENT).

#include <optional>

#include "common/otel/span.h"
#include "common/otel/tracer.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/agents/agent.h"
#include "worker/agents/task_trace.h"

namespace taskboard::worker {

class AttemptTrace {
 public:
  // `tracer` must outlive this. `capture_content` (the worker's
  // --trace-capture-content): the attempt's LLM spans carry prompt and
  // completion text if the assignment allows it too.
  AttemptTrace(const otel::Tracer& tracer, const v1::Assignment& assignment,
               bool capture_content = false);
  // Ends the span (as failed) if End was not called.
  ~AttemptTrace();
  AttemptTrace(const AttemptTrace&) = delete;
  AttemptTrace& operator=(const AttemptTrace&) = delete;

  // Null when the assignment is not traced.
  const TaskTrace* trace() const { return trace_ ? &*trace_ : nullptr; }

  // Records how the attempt ended (taskboard.outcome, token usage, the
  // error as the status) and ends the span.
  void End(const AgentOutcome& outcome, bool cancelled);

 private:
  otel::Span span_;
  std::optional<TaskTrace> trace_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_ATTEMPT_TRACE_H_
