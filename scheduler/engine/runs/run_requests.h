#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_REQUESTS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_REQUESTS_H_

// What SubmitRun and ResumeRun ask of the runs and what they answer.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/otel/span_context.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// ResumeRun's new budget for the run (unset: unchanged).
struct ResumeBudget {
  std::optional<double> usd;
  std::optional<int64_t> tokens;
};

// The running task whose agent starts a run (SubmitRunRequest.started_by).
struct StartedBy {
  std::string run_id;
  std::string task_id;
};

struct SubmitRequest {
  v1::FlowSpec spec;           // validated
  Json args = Json::object();  // bound (BindRunArgs)
  std::string session_id;
  std::map<std::string, std::string> labels;
  std::string idempotency_key;
  // Whose run it is (docs/security.md#tenants); "" without authentication.
  std::string tenant;
  // The span the run's span is a child of: the caller's W3C traceparent on
  // SubmitRun, or a child run's parent task attempt. Unset or invalid: the
  // run starts a trace of its own (docs/observability.md#trace-context).
  std::optional<otel::SpanContext> trace_parent;
  // The caller's deadline for the whole run in seconds (0: none) and who
  // set it: SubmitRun's run_timeout_seconds or a schedule's
  // runTimeoutSeconds. The flow's own may be smaller (run_deadline.h).
  int32_t run_timeout_seconds = 0;
  v1::RunDeadlineSource run_timeout_source = v1::RUN_DEADLINE_SOURCE_SUBMIT;
  // Set: the run is a child of this task's run (started_runs.h).
  std::optional<StartedBy> started_by;
};

struct SubmitResult {
  std::string run_id;
  bool existing = false;  // the idempotency key named an earlier run
};

struct ResumeResult {
  std::string run_id;
  std::vector<std::string> reused_phases;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_REQUESTS_H_
