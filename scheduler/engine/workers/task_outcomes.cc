#include "scheduler/engine/workers/task_outcomes.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/log/log.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/governance/usage_sum.h"

namespace taskboard::engine {

void TaskOutcomes::OnStarted(const v1::TaskStarted& started) {
  std::optional<LeaseKeeper::Covered> covered =
      leases_->Current(started.lease_id(), started.task_id());
  if (covered.has_value() && covered->task->task().state() == v1::TASK_STATE_DISPATCHED) {
    MarkRunning(*covered->task, batch_->now_ms());
    leases_->Extend(started.lease_id());
  }
}

void TaskOutcomes::OnOutputDelta(const v1::OutputDelta& delta) {
  if (ActiveRun* active = leases_->CurrentRun(delta.lease_id(), delta.task_id())) {
    v1::RunEvent event;
    event.mutable_output_delta()->set_task_id(delta.task_id());
    event.mutable_output_delta()->set_text(delta.text());
    active->state->Emit(std::move(event));
  }
}

void TaskOutcomes::OnResult(const dispatch::ConnectedWorker& from, const v1::TaskResult& result) {
  if (const dispatch::Lease* lease = leases_->Find(result.lease_id());
      lease != nullptr && lease->task_id.empty()) {
    prior_work_->OnSummaryResult(result);
    return Ack(from, result.task_id(), result.lease_id(), true);
  }
  std::optional<LeaseKeeper::Covered> covered = leases_->TakeForResult(result);
  if (!covered.has_value()) {
    // Fencing: the task was re-dispatched, cancelled or already finished.
    return Ack(from, result.task_id(), result.lease_id(), false,
               absl::StrCat("lease ", result.lease_id(), " is no longer current for task '",
                            result.task_id(), "'"));
  }
  RunState* run = covered->run->state.get();
  store::TaskRecord* task = covered->task;
  results_++;
  // The run's total adds what the task keeps (ApplyResult): the same
  // accepted numbers, never a worker's negative counts.
  AddUsage(*run->MutableRecord().mutable_run()->mutable_usage(),
           governance::AcceptedUsage(result.usage()));
  int64_t delay = options_.retry_backoff.DelayMs(task->agent_failures() + 1, batch_->rng());
  AttemptOutcome outcome;
  if (static_cast<int64_t>(result.output().size()) > options_.max_output_bytes) {
    outcome = FailAttempt(
        *task,
        absl::StrCat("output of ", result.output().size(),
                     " bytes is over the scheduler's limit of ", options_.max_output_bytes,
                     " bytes (--max-output-bytes); write large results to a "
                     "file and output its path"),
        batch_->now_ms(), delay);
  } else {
    outcome = ApplyResult(*task, result, batch_->now_ms(), delay);
  }
  CountAttempt(*task, outcome);
  log::Debug("task result")
      .With("run_id", run->run_id())
      .With("task_id", result.task_id())
      .With("attempt", task->task().attempt())
      .With("success", result.success())
      .With("retrying", outcome == AttemptOutcome::kRetrying)
      .WithNonEmpty("error", result.error());
  if (outcome == AttemptOutcome::kRetrying) RetryAfterBackoff(run->run_id(), *task);
  Ack(from, result.task_id(), result.lease_id(), true);
}

void TaskOutcomes::OnReturned(const dispatch::ConnectedWorker& from,
                              const v1::TaskReturned& returned) {
  if (const dispatch::Lease* lease = leases_->Find(returned.lease_id());
      lease != nullptr && lease->task_id.empty()) {
    // A draining worker handed the summary back: another worker writes it.
    prior_work_->OnSummaryReturned(returned.lease_id());
    return Ack(from, returned.task_id(), returned.lease_id(), true);
  }
  std::optional<LeaseKeeper::Covered> covered =
      leases_->Current(returned.lease_id(), returned.task_id());
  if (covered.has_value()) {
    ApplyReturned(*covered->task, attempt_end::kReturned,
                  returned.reason().empty() ? "handed back by the worker" : returned.reason(),
                  batch_->now_ms());
    leases_->End(returned.lease_id());
  }
  // Acknowledged like a result, so a draining worker can stop waiting.
  Ack(from, returned.task_id(), returned.lease_id(), covered.has_value(),
      covered.has_value() ? "" : "lease is no longer current");
}

void TaskOutcomes::OnRetryDue(const Timer& timer) {
  ActiveRun* active = runs_->Find(timer.run_id);
  if (active == nullptr) return;
  RunState& run = *active->state;
  const store::TaskRecord* task = run.FindTask(timer.task_id);
  if (task == nullptr || task->task().state() != v1::TASK_STATE_RETRYING) return;
  MarkReady(run.MutableTask(timer.task_id), batch_->now_ms());
  batch_->Touch(timer.run_id);
}

void TaskOutcomes::OnTimeoutDue(const Timer& timer) {
  ActiveRun* active = runs_->Find(timer.run_id);
  if (active == nullptr) return;
  RunState& run = *active->state;
  const store::TaskRecord* task = run.FindTask(timer.task_id);
  if (task == nullptr || task->lease_id() != timer.token) return;
  // timeoutSeconds counts from the start, not the dispatch: a task waiting
  // in a worker's prefetch queue has not started. One not yet started is
  // checked again a timeout later (its lease covers a worker that died
  // meanwhile).
  const int64_t timeout_ms = task->assignment().timeout_seconds() * 1000LL;
  if (task->task().state() == v1::TASK_STATE_DISPATCHED) {
    timers_->Add({batch_->now_ms() + timeout_ms, TimerKind::kTaskTimeout, timer.run_id,
                  timer.task_id, timer.token});
    return;
  }
  if (task->started_unix_ms() + timeout_ms > batch_->now_ms()) {
    timers_->Add({task->started_unix_ms() + timeout_ms, TimerKind::kTaskTimeout, timer.run_id,
                  timer.task_id, timer.token});
    return;
  }
  const dispatch::Lease* lease = leases_->Find(timer.token);
  if (lease != nullptr && lease->stream_id != 0) {
    v1::ConnectResponse message;
    message.mutable_cancel()->set_task_id(timer.task_id);
    message.mutable_cancel()->set_lease_id(timer.token);
    message.mutable_cancel()->set_reason("task timed out");
    streams_->SendTo(lease->stream_id, std::move(message));
  }
  leases_->RememberTimedOut(timer.token, timer.run_id, *task);
  leases_->End(timer.token);
  store::TaskRecord& timed_out = run.MutableTask(timer.task_id);
  int64_t delay = options_.retry_backoff.DelayMs(timed_out.agent_failures() + 1, batch_->rng());
  AttemptOutcome outcome =
      TimeOutAttempt(timed_out,
                     absl::StrCat("timed out after ", timed_out.assignment().timeout_seconds(),
                                  "s (timeoutSeconds)"),
                     batch_->now_ms(), delay);
  CountAttempt(timed_out, outcome);
  if (outcome == AttemptOutcome::kRetrying) RetryAfterBackoff(timer.run_id, timed_out);
  batch_->Touch(timer.run_id);
}

void TaskOutcomes::CountAttempt(const store::TaskRecord& task, AttemptOutcome outcome) {
  if (options_.metrics == nullptr) return;
  TaskEnd end = outcome == AttemptOutcome::kCompleted  ? TaskEnd::kCompleted
                : outcome == AttemptOutcome::kRetrying ? TaskEnd::kRetried
                                                       : TaskEnd::kFailed;
  options_.metrics->TaskEnded(
      task.task().agent(), end,
      absl::Milliseconds(std::max<int64_t>(0, batch_->now_ms() - task.dispatched_unix_ms())));
}

void TaskOutcomes::RetryAfterBackoff(const std::string& run_id, const store::TaskRecord& task) {
  timers_->Add({task.not_before_unix_ms(), TimerKind::kRetry, run_id, task.task().task_id(), ""});
}

void TaskOutcomes::Ack(const dispatch::ConnectedWorker& from, const std::string& task_id,
                       const std::string& lease_id, bool accepted, std::string reason) {
  v1::ConnectResponse message;
  v1::ResultAck& ack = *message.mutable_result_ack();
  ack.set_task_id(task_id);
  ack.set_lease_id(lease_id);
  ack.set_accepted(accepted);
  if (!reason.empty()) ack.set_reason(std::move(reason));
  batch_->Send(from.channel, std::move(message));
}

}  // namespace taskboard::engine
