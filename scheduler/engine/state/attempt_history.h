#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_ATTEMPT_HISTORY_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_ATTEMPT_HISTORY_H_

// A task's earlier attempts (Task.earlier_attempts): when an attempt ends and
// the task will run again (a retry, a lost or handed-back lease, a reviewer's
// revision, a resumed run), the attempt's number, worker, times and why it
// ended are appended before the task's fields are reset for the next one.
// They live in the task's stored record, so they survive a restart. The task
// that ends for good keeps its last attempt in its own fields (attempt,
// worker_id, started_at, error), not in the list.

#include <cstdint>

#include "absl/strings/string_view.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::engine {

// TaskAttempt.ended: why an attempt ended (the vocabulary of
// proto/taskboard/v1/scheduler.proto's TaskAttempt).
namespace attempt_end {
// The agent reported an error, or the scheduler refused its output (too
// large, a pattern reply that does not parse).
inline constexpr absl::string_view kFailed = "failed";
// The worker stopped heartbeating the task's lease.
inline constexpr absl::string_view kLeaseExpired = "lease_expired";
// The worker came back without the task (restarted, or its stream dropped
// the assignment).
inline constexpr absl::string_view kWorkerLost = "worker_lost";
// The worker handed the task back (draining, shutting down).
inline constexpr absl::string_view kReturned = "returned";
// The task's timeoutSeconds passed.
inline constexpr absl::string_view kTimedOut = "timed_out";
// The run was cancelled (or paused) with the attempt open; seen once a
// resumed run runs the task again.
inline constexpr absl::string_view kCancelled = "cancelled";
// A reviewer sent the result back for revision (supervisor).
inline constexpr absl::string_view kRejected = "rejected";
// The attempt had completed, and a resumed run ran the task again (its
// input changed, or what judged it is asked again).
inline constexpr absl::string_view kResumed = "resumed";
}  // namespace attempt_end

// How many earlier attempts a task keeps; older ones are dropped, so a task
// lost to a flapping worker for hours does not grow its record (and every
// GetTask answer) without bound. 20 covers any max_attempts a flow sets in
// practice plus a few infrastructure losses.
inline constexpr int kMaxEarlierAttempts = 20;

// Appends the task's current attempt (its attempt number, worker_id, start)
// as ended at `now_ms` for `ended` (an attempt_end word) with `detail`,
// dropping the oldest past kMaxEarlierAttempts. A task never dispatched
// (attempt 0) has nothing to record.
void RecordEndedAttempt(store::TaskRecord& task, absl::string_view ended, absl::string_view detail,
                        int64_t now_ms);

// `replacement` takes over from `before` (the same task id run again under a
// new record): it gets `before`'s earlier attempts plus `before`'s last
// attempt, ended for `ended` with `detail`.
void CarryAttempts(const store::TaskRecord& before, store::TaskRecord& replacement,
                   absl::string_view ended, absl::string_view detail, int64_t now_ms);

// A resumed run runs `before` again as `replacement`: like CarryAttempts,
// with why the last attempt ended read from how it ended (failed,
// cancelled, or resumed for one that had completed).
void CarryAttemptsOnResume(const store::TaskRecord& before, store::TaskRecord& replacement,
                           int64_t now_ms);
// The same for a task resumed in place (pattern runs): records its last
// attempt before its fields are reset.
void RecordAttemptOnResume(store::TaskRecord& task, int64_t now_ms);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_ATTEMPT_HISTORY_H_
