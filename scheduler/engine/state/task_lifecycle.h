#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_TASK_LIFECYCLE_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_TASK_LIFECYCLE_H_

// The task state machine of docs/semantics.md#task-lifecycle, as transitions on a TaskRecord:
//
//   PENDING -> READY -> DISPATCHED -> RUNNING -> COMPLETED
//                ^          |            |  \-> FAILED (attempts used up)
//                |          +------------+---> RETRYING --backoff--> READY
//                +--- lease lost / handed back (infrastructure) ----+
//   any non-terminal -> CANCELLED;  PENDING -> SKIPPED (driver)
//
// Agent failures count against the task's max_attempts; infrastructure
// losses (a worker died or went silent) count separately against
// max_infra_attempts, so a flaky node does not eat a task's real retries.
// Every transition that sends a task back to run again records the ended
// attempt in Task.earlier_attempts first (attempt_history.h).

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::engine {

void MarkReady(store::TaskRecord& task, int64_t now_ms);
// Starts an attempt under `lease_id`; `task.attempt` becomes its 1-based number.
void MarkDispatched(store::TaskRecord& task, absl::string_view lease_id,
                    absl::string_view worker_id, int64_t now_ms);
void MarkRunning(store::TaskRecord& task, int64_t now_ms);

enum class AttemptOutcome { kCompleted, kRetrying, kFailed };

// Applies a worker's result to a dispatched/running task. A failure retries
// after `retry_delay_ms` while attempts remain.
AttemptOutcome ApplyResult(store::TaskRecord& task, const v1::TaskResult& result, int64_t now_ms,
                           int64_t retry_delay_ms);
// An attempt that failed on the scheduler's side (output too large, a pattern
// reply that does not parse): same accounting as an agent failure.
AttemptOutcome FailAttempt(store::TaskRecord& task, std::string error, int64_t now_ms,
                           int64_t retry_delay_ms);
// The same for an attempt past its timeoutSeconds (recorded as `timed_out`).
AttemptOutcome TimeOutAttempt(store::TaskRecord& task, std::string error, int64_t now_ms,
                              int64_t retry_delay_ms);
// The worker lost the task (lease expired, worker restarted without it):
// READY again, or FAILED once `max_infra_attempts` losses happened. `ended`
// is the attempt_end word the lost attempt is recorded with.
AttemptOutcome ApplyInfraLoss(store::TaskRecord& task, absl::string_view ended,
                              absl::string_view reason, int max_infra_attempts, int64_t now_ms);
// The task goes back unstarted or interrupted without using an attempt: the
// worker handed it back (draining; `ended` is `returned`), or its assignment
// never reached the worker (`worker_lost`). READY again; the next attempt
// runs under the same number.
void ApplyReturned(store::TaskRecord& task, absl::string_view ended, absl::string_view reason,
                   int64_t now_ms);
// Fails the task for good (no retry), e.g. no worker offers its agent.
void FailTask(store::TaskRecord& task, std::string error, int64_t now_ms);
void MarkCancelled(store::TaskRecord& task, absl::string_view reason, int64_t now_ms);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_TASK_LIFECYCLE_H_
