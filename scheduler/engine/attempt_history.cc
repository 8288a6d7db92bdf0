#include "scheduler/engine/attempt_history.h"

#include <string>
#include <utility>

#include "scheduler/engine/task_states.h"

namespace taskboard::engine {
namespace {

// An attempt starts at its dispatch and, once the worker reports it started,
// at that: the record's started time is older than the dispatch when this
// attempt never started.
int64_t AttemptStartMs(const store::TaskRecord& task) {
  return task.started_unix_ms() >= task.dispatched_unix_ms() ? task.started_unix_ms()
                                                             : task.dispatched_unix_ms();
}

void DropOldest(v1::Task& view) {
  const int excess = view.earlier_attempts_size() - kMaxEarlierAttempts;
  if (excess > 0) view.mutable_earlier_attempts()->DeleteSubrange(0, excess);
}

absl::string_view EndedBeforeResume(const store::TaskRecord& task) {
  switch (task.task().state()) {
    case v1::TASK_STATE_FAILED:
      return attempt_end::kFailed;
    case v1::TASK_STATE_CANCELLED:
      return attempt_end::kCancelled;
    default:
      return attempt_end::kResumed;
  }
}

}  // namespace

void RecordEndedAttempt(store::TaskRecord& task, absl::string_view ended, absl::string_view detail,
                        int64_t now_ms) {
  v1::Task& view = *task.mutable_task();
  if (view.attempt() <= 0) return;
  const int64_t start = AttemptStartMs(task);
  // A task waiting for its next attempt (retrying, or ready after a lost
  // lease) still shows the attempt already recorded; when the run is
  // cancelled and resumed then, that attempt is not recorded twice.
  if (!view.earlier_attempts().empty()) {
    const v1::TaskAttempt& last = *view.earlier_attempts().rbegin();
    if (last.attempt() == view.attempt() && ToUnixMs(last.started_at()) == start) return;
  }
  v1::TaskAttempt& attempt = *view.add_earlier_attempts();
  attempt.set_attempt(view.attempt());
  attempt.set_worker_id(view.worker_id());
  if (start > 0) *attempt.mutable_started_at() = ToTimestamp(start);
  *attempt.mutable_ended_at() = ToTimestamp(now_ms);
  attempt.set_ended(std::string(ended));
  attempt.set_detail(std::string(detail));
  DropOldest(view);
}

void CarryAttempts(const store::TaskRecord& before, store::TaskRecord& replacement,
                   absl::string_view ended, absl::string_view detail, int64_t now_ms) {
  store::TaskRecord history = before;
  RecordEndedAttempt(history, ended, detail, now_ms);
  *replacement.mutable_task()->mutable_earlier_attempts() =
      std::move(*history.mutable_task()->mutable_earlier_attempts());
}

void CarryAttemptsOnResume(const store::TaskRecord& before, store::TaskRecord& replacement,
                           int64_t now_ms) {
  // The attempt ended when the task did, not at the resume.
  const int64_t ended_ms = before.finished_unix_ms() > 0 ? before.finished_unix_ms() : now_ms;
  CarryAttempts(before, replacement, EndedBeforeResume(before), before.task().error(), ended_ms);
}

void RecordAttemptOnResume(store::TaskRecord& task, int64_t now_ms) {
  const int64_t ended_ms = task.finished_unix_ms() > 0 ? task.finished_unix_ms() : now_ms;
  RecordEndedAttempt(task, EndedBeforeResume(task), task.task().error(), ended_ms);
}

}  // namespace taskboard::engine
