#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_TASK_OUTCOMES_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_TASK_OUTCOMES_H_

// What becomes of a dispatched task (docs/semantics.md#task-lifecycle): the
// worker says it started, streams output, reports a result or hands the
// task back; or its timeoutSeconds passes, or its retry backoff ends. Each
// report counts only under the task's current lease (fencing,
// docs/semantics.md#leases-and-fencing); it is acknowledged on the stream
// it came on once the batch is written. A summarizer's lease (the only
// lease without a task id) is the prior work source's: its result and
// hand-back go there.
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "scheduler/dispatch/worker_registry.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/prior_work_source.h"
#include "scheduler/engine/workers/retry_backoff.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "scheduler/store/records.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class TaskOutcomes {
 public:
  struct Options {
    // Larger outputs fail the attempt (--max-output-bytes).
    int64_t max_output_bytes = 1 << 20;
    RetryBackoff retry_backoff;
    EngineMetrics* metrics = nullptr;  // may be null
  };
  // Everything outlives this. SetPriorWork must run before the first batch.
  TaskOutcomes(Options options, LoopBatch* batch, TimerQueue* timers, ActiveRuns* runs,
               WorkerStreams* streams, LeaseKeeper* leases)
      : options_(options),
        batch_(batch),
        timers_(timers),
        runs_(runs),
        streams_(streams),
        leases_(leases) {}
  TaskOutcomes(const TaskOutcomes&) = delete;
  TaskOutcomes& operator=(const TaskOutcomes&) = delete;

  void SetPriorWork(PriorWorkSource* source) { prior_work_ = source; }

  // The task runs: its timeout counts from now, its lease is extended.
  void OnStarted(const v1::TaskStarted& started);
  // Output so far, an event of the run (not stored with the task).
  void OnOutputDelta(const v1::OutputDelta& delta);
  // The attempt's result: applied to the task (an output over the limit
  // fails the attempt), the lease ends, a retry is timed. A report under a
  // lease that is no longer current is refused, though a timed-out
  // attempt's late report keeps its execution record. Acknowledged on
  // `from`'s stream either way.
  void OnResult(const dispatch::ConnectedWorker& from, const v1::TaskResult& result);
  // The worker hands the task back (draining): queued again under the same
  // attempt number. Acknowledged like a result.
  void OnReturned(const dispatch::ConnectedWorker& from, const v1::TaskReturned& returned);

  // A kRetry timer: a RETRYING task is READY again.
  void OnRetryDue(const Timer& timer);
  // A kTaskTimeout timer: the attempt times out (the worker is told to
  // stop) once timeoutSeconds passed since it started; checked again later
  // while it has not started or not run that long.
  void OnTimeoutDue(const Timer& timer);

  // Results accepted so far (EngineStats::results).
  int64_t results() const { return results_; }

 private:
  // Records how an attempt of `task` ended (a no-op without metrics).
  void CountAttempt(const store::TaskRecord& task, AttemptOutcome outcome);
  // A RETRYING task becomes READY when its backoff ends.
  void RetryAfterBackoff(const std::string& run_id, const store::TaskRecord& task);
  // A ResultAck on `from`'s stream once the batch is written.
  void Ack(const dispatch::ConnectedWorker& from, const std::string& task_id,
           const std::string& lease_id, bool accepted, std::string reason = "");

  const Options options_;
  LoopBatch* const batch_;
  TimerQueue* const timers_;
  ActiveRuns* const runs_;
  WorkerStreams* const streams_;
  LeaseKeeper* const leases_;
  PriorWorkSource* prior_work_ = nullptr;
  int64_t results_ = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_TASK_OUTCOMES_H_
