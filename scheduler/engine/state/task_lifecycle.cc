#include "scheduler/engine/state/task_lifecycle.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {
namespace {

void Finish(store::TaskRecord& task, v1::TaskState state, int64_t now_ms) {
  task.mutable_task()->set_state(state);
  task.set_finished_unix_ms(now_ms);
  *task.mutable_task()->mutable_finished_at() = ToTimestamp(now_ms);
  task.clear_lease_id();
}

AttemptOutcome RetryOrFail(store::TaskRecord& task, absl::string_view ended, int64_t now_ms,
                           int64_t retry_delay_ms) {
  task.set_agent_failures(task.agent_failures() + 1);
  if (task.agent_failures() < task.max_attempts()) {
    RecordEndedAttempt(task, ended, task.task().error(), now_ms);
    task.mutable_task()->set_state(v1::TASK_STATE_RETRYING);
    task.set_not_before_unix_ms(now_ms + retry_delay_ms);
    task.clear_lease_id();
    return AttemptOutcome::kRetrying;
  }
  Finish(task, v1::TASK_STATE_FAILED, now_ms);
  return AttemptOutcome::kFailed;
}

}  // namespace

void MarkReady(store::TaskRecord& task, int64_t now_ms) {
  task.mutable_task()->set_state(v1::TASK_STATE_READY);
  task.set_ready_unix_ms(now_ms);
  task.clear_lease_id();
  task.mutable_task()->clear_worker_id();
}

void MarkDispatched(store::TaskRecord& task, absl::string_view lease_id,
                    absl::string_view worker_id, int64_t now_ms) {
  v1::Task& view = *task.mutable_task();
  view.set_state(v1::TASK_STATE_DISPATCHED);
  view.set_attempt(task.agent_failures() + task.infra_failures() + 1);
  view.set_worker_id(std::string(worker_id));
  // The task's own fields describe this attempt from now on; the one before
  // is in earlier_attempts (attempt_history.h).
  view.clear_error();
  view.clear_started_at();
  task.set_started_unix_ms(0);
  task.set_lease_id(std::string(lease_id));
  task.set_dispatched_unix_ms(now_ms);
}

void MarkRunning(store::TaskRecord& task, int64_t now_ms) {
  task.mutable_task()->set_state(v1::TASK_STATE_RUNNING);
  task.set_started_unix_ms(now_ms);
  *task.mutable_task()->mutable_started_at() = ToTimestamp(now_ms);
}

AttemptOutcome ApplyResult(store::TaskRecord& task, const v1::TaskResult& result, int64_t now_ms,
                           int64_t retry_delay_ms) {
  v1::Task& view = *task.mutable_task();
  view.set_output(result.output());
  // What a worker reports is bounded where it is accepted (usage_sum.h).
  *view.mutable_usage() = governance::AcceptedUsage(result.usage());
  *task.mutable_execution() = result.execution();
  if (result.success()) {
    view.clear_error();
    Finish(task, v1::TASK_STATE_COMPLETED, now_ms);
    return AttemptOutcome::kCompleted;
  }
  view.set_error(result.error().empty() ? "the agent reported failure without a message"
                                        : result.error());
  return RetryOrFail(task, attempt_end::kFailed, now_ms, retry_delay_ms);
}

AttemptOutcome FailAttempt(store::TaskRecord& task, std::string error, int64_t now_ms,
                           int64_t retry_delay_ms) {
  task.mutable_task()->set_error(std::move(error));
  return RetryOrFail(task, attempt_end::kFailed, now_ms, retry_delay_ms);
}

AttemptOutcome TimeOutAttempt(store::TaskRecord& task, std::string error, int64_t now_ms,
                              int64_t retry_delay_ms) {
  task.mutable_task()->set_error(std::move(error));
  return RetryOrFail(task, attempt_end::kTimedOut, now_ms, retry_delay_ms);
}

AttemptOutcome ApplyInfraLoss(store::TaskRecord& task, absl::string_view ended,
                              absl::string_view reason, int max_infra_attempts, int64_t now_ms) {
  task.set_infra_failures(task.infra_failures() + 1);
  if (task.infra_failures() >= max_infra_attempts) {
    task.mutable_task()->set_error(
        absl::StrCat("lost by workers ", task.infra_failures(), " times; last: ", reason));
    Finish(task, v1::TASK_STATE_FAILED, now_ms);
    return AttemptOutcome::kFailed;
  }
  RecordEndedAttempt(task, ended, reason, now_ms);
  MarkReady(task, now_ms);
  return AttemptOutcome::kRetrying;
}

void ApplyReturned(store::TaskRecord& task, absl::string_view ended, absl::string_view reason,
                   int64_t now_ms) {
  RecordEndedAttempt(task, ended, reason, now_ms);
  MarkReady(task, now_ms);
}

void FailTask(store::TaskRecord& task, std::string error, int64_t now_ms) {
  task.mutable_task()->set_error(std::move(error));
  Finish(task, v1::TASK_STATE_FAILED, now_ms);
}

void MarkCancelled(store::TaskRecord& task, absl::string_view reason, int64_t now_ms) {
  task.mutable_task()->set_error(std::string(reason));
  Finish(task, v1::TASK_STATE_CANCELLED, now_ms);
}

}  // namespace taskboard::engine
