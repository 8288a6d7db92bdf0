#include "scheduler/engine/state/attempt_history.h"

#include <string>
#include <utility>

#include "scheduler/engine/state/task_states.h"

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

// On resume the attempt ended when the task did, not at the resume.
int64_t EndedBeforeResumeMs(const store::TaskRecord& task, int64_t now_ms) {
  return task.finished_unix_ms() > 0 ? task.finished_unix_ms() : now_ms;
}

// Appends `from`'s current attempt (number, worker, start) to `into`'s
// earlier attempts, ended at `now_ms`: `into` is `from`'s own view, or the
// view of the record that replaces it.
void AppendEndedAttempt(const store::TaskRecord& from, v1::Task& into, absl::string_view ended,
                        absl::string_view detail, int64_t now_ms) {
  const int32_t number = from.task().attempt();
  if (number <= 0) return;
  const int64_t start = AttemptStartMs(from);
  // A task waiting for its next attempt (retrying, or ready after a lost
  // lease) still shows the attempt already recorded; when the run is
  // cancelled and resumed then, that attempt is not recorded twice.
  if (!into.earlier_attempts().empty()) {
    const v1::TaskAttempt& last = *into.earlier_attempts().rbegin();
    if (last.attempt() == number && ToUnixMs(last.started_at()) == start) return;
  }
  v1::TaskAttempt attempt;
  attempt.set_attempt(number);
  attempt.set_worker_id(from.task().worker_id());
  if (start > 0) *attempt.mutable_started_at() = ToTimestamp(start);
  *attempt.mutable_ended_at() = ToTimestamp(now_ms);
  attempt.set_ended(std::string(ended));
  attempt.set_detail(std::string(detail));
  *into.add_earlier_attempts() = std::move(attempt);
  DropOldest(into);
}

}  // namespace

void RecordEndedAttempt(store::TaskRecord& task, absl::string_view ended, absl::string_view detail,
                        int64_t now_ms) {
  AppendEndedAttempt(task, *task.mutable_task(), ended, detail, now_ms);
}

void CarryAttempts(const store::TaskRecord& before, store::TaskRecord& replacement,
                   absl::string_view ended, absl::string_view detail, int64_t now_ms) {
  v1::Task& view = *replacement.mutable_task();
  *view.mutable_earlier_attempts() = before.task().earlier_attempts();
  AppendEndedAttempt(before, view, ended, detail, now_ms);
}

void CarryAttemptsOnResume(const store::TaskRecord& before, store::TaskRecord& replacement,
                           int64_t now_ms) {
  CarryAttempts(before, replacement, EndedBeforeResume(before), before.task().error(),
                EndedBeforeResumeMs(before, now_ms));
}

void RecordAttemptOnResume(store::TaskRecord& task, int64_t now_ms) {
  RecordEndedAttempt(task, EndedBeforeResume(task), task.task().error(),
                     EndedBeforeResumeMs(task, now_ms));
}

}  // namespace taskboard::engine
