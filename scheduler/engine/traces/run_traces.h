#ifndef TASKBOARD_SCHEDULER_ENGINE_TRACES_RUN_TRACES_H_
#define TASKBOARD_SCHEDULER_ENGINE_TRACES_RUN_TRACES_H_

// The scheduler's spans (docs/observability.md#scheduler-spans), made from
// what the engine already publishes: each commit's run events (the same ones
// WatchRun streams) and, from the dispatcher, the prior work chosen for an
// attempt. A span is built whole when what it describes ends, from the
// events' times, with the ids the run's stored trace context gives
// (state/run_trace.h): so a run's spans stay in one trace across a restart,
// and the dispatcher can name an attempt's span in the assignment before the
// span exists.
//
//   run <flow>                      internal   run_started .. run_finished
//   ├── phase <id>                  internal   a taskflow phase
//   │   └── task.attempt            producer   queued, dispatched, running (events)
//   │       ├── prior_work.select   internal   policy, selected, available
//   │       ├── (the worker's task.attempt, under the assignment's traceparent)
//   │       └── (a child run's run span)
//   ├── pattern.stage <stage>       internal   planning, active, reviewing...
//   └── approval.wait               internal   waiting_since .. decided
//
// Only sampled runs cost anything beyond a check: an unsampled run's events
// are skipped, and nothing here blocks: a span's End pushes it into
// common/otel's bounded queue, which drops when full (decision 182).
//
// Threading: OnCommitted is called on one thread at a time, in commit order
// (the engine's commit thread); PriorWorkChosen on the engine loop. They
// share no state.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/otel/tracer.h"
#include "scheduler/engine/workers/prior_work_tracer.h"
#include "scheduler/store/records.pb.h"
#include "taskboard/v1/policy.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

// What the spans of a run say about it, taken from its record at commit.
struct TracedRun {
  store::RunTrace trace;
  std::string run_id;
  std::string root_run_id;
  std::string parent_run_id;
  std::string flow_name;
  v1::FlowKind kind = v1::FLOW_KIND_UNSPECIFIED;
  std::string tenant;
  int64_t created_unix_ms = 0;
};

// The run's record as TracedRun; its `trace` is unset when not traced.
TracedRun TracedRunOf(const store::RunRecord& record);

class RunTraces : public PriorWorkTracer {
 public:
  // `tracer` null or not enabled: nothing is made. Outlives this.
  explicit RunTraces(const otel::Tracer* tracer) : tracer_(tracer) {}
  RunTraces(const RunTraces&) = delete;
  RunTraces& operator=(const RunTraces&) = delete;

  // Whether `trace` would give spans: tracing on and the run sampled.
  bool Records(const store::RunTrace& trace) const override;

  // One commit's events of `run`, in seq order, once they are written.
  void OnCommitted(const TracedRun& run, const std::vector<v1::RunEvent>& events);

  // The dispatcher chose `meta` as the prior work of attempt `attempt` of
  // `task_id`, between `start_us` and `end_us` (unix microseconds).
  void PriorWorkChosen(const store::RunTrace& trace, const std::string& task_id, int32_t attempt,
                       const v1::PriorWorkMeta& meta, int64_t start_us,
                       int64_t end_us) const override;

  // Runs with spans still open (their run span, stage or tasks in flight).
  size_t open_runs() const { return runs_.size(); }

 private:
  // When an attempt of a task was seen queued, dispatched and running
  // (unix nanoseconds; 0: not seen).
  struct TaskTimes {
    int32_t attempt = 0;
    int64_t queued = 0;
    int64_t dispatched = 0;
    int64_t running = 0;
    // The last attempt whose span was made, so none is made twice.
    int32_t emitted_attempt = 0;
    bool approval_emitted = false;
  };
  struct OpenRun {
    int64_t started = 0;
    std::string stage;
    int32_t stage_iteration = 0;
    int64_t stage_since = 0;
    absl::flat_hash_map<std::string, TaskTimes> tasks;
  };

  void OnTask(const TracedRun& run, OpenRun& open, const v1::Task& task, int64_t at);
  void EmitAttempt(const TracedRun& run, const v1::Task& task, const TaskTimes& times,
                   int32_t attempt, int64_t end);
  void EmitApproval(const TracedRun& run, const v1::Task& task, int64_t at);
  void OnPhase(const TracedRun& run, const v1::PhaseStatus& phase, int64_t at);
  void EndStage(const TracedRun& run, OpenRun& open, int64_t at);
  void EmitRun(const TracedRun& run, const OpenRun& open, const v1::RunFinished& finished,
               int64_t at);

  const otel::Tracer* const tracer_;
  // Sampled runs with something open, by run id.
  absl::flat_hash_map<std::string, OpenRun> runs_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TRACES_RUN_TRACES_H_
