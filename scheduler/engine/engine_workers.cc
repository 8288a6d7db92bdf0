// Engine: worker streams, results and timers (the dispatch is workers/dispatcher.h).

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/log.h"
#include "scheduler/engine/attempt_history.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/ids.h"
#include "scheduler/engine/task_lifecycle.h"
#include "scheduler/engine/task_states.h"
#include "scheduler/engine/tool_permission.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

void Engine::DoHello(uint64_t stream_id, v1::Hello& hello,
                     std::shared_ptr<dispatch::WorkerChannel>& channel,
                     const std::string& identity) {
  dispatch::ConnectedWorker& worker = workers_.Add(stream_id, hello, std::move(channel), identity);
  for (const std::string& agent : worker.agents) dispatcher_.AgentOffered(agent);
  v1::ConnectResponse welcome_message;
  v1::Welcome& welcome = *welcome_message.mutable_welcome();
  welcome.set_scheduler_id(options_.scheduler_id);
  welcome.set_lease_timeout_ms(options_.lease_timeout_ms);
  welcome.set_heartbeat_interval_ms(options_.heartbeat_interval_ms);
  welcome.set_accepts_batches(true);
  welcome.set_governs_llm_calls(true);
  const size_t held = leases_.OnHello(worker, hello, welcome);
  log::Info("worker connected")
      .With("worker_id", worker.worker_id)
      .With("slots", hello.slots())
      .With("prefetch", hello.prefetch())
      .With("agents", worker.agents)
      .With("held_tasks", held)
      .With("revoked_leases", welcome.revoked_lease_ids_size());
  workers_.SendTo(stream_id, std::move(welcome_message));
}

void Engine::DoDisconnect(uint64_t stream_id) {
  // Leases stay until they expire or the worker reconnects (it may still be
  // running the tasks); they are just no longer reachable through a stream.
  // The LLM grants release its waiting model calls (asked again on its next
  // stream).
  leases_.Detach(stream_id);
  dispatch::ConnectedWorker* worker = workers_.Find(stream_id);
  if (worker == nullptr) return;
  std::set<std::string, std::less<>> agents = worker->agents;
  std::string worker_id = worker->worker_id;
  log::Info("worker disconnected").With("worker_id", worker_id);
  workers_.Remove(stream_id);
  // Its waits are dropped (the worker runs those calls itself once its
  // stream is gone) and the calls it was running for others pass to a
  // waiter, unless another stream of the same worker is still open.
  if (workers_.registry().FindByWorkerId(worker_id).empty())
    SendAnswers(cache_.WorkerLost(worker_id));
  // Ready tasks of an agent no connected worker offers any more fail after
  // the scheduling timeout counted from now, like tasks queued while nobody
  // offered it.
  for (const std::string& agent : agents) {
    if (workers_.registry().AnyOffers(agent)) continue;
    dispatcher_.AgentLost(agent);
  }
}

void Engine::DoWorkerMessage(uint64_t stream_id, v1::ConnectRequest& message) {
  dispatch::ConnectedWorker* worker = workers_.Heard(stream_id);
  if (worker == nullptr) return;  // no Hello yet, or already gone
  switch (message.msg_case()) {
    case v1::ConnectRequest::kCredits:
      workers_.OnCredits(*worker, message.credits());
      break;
    case v1::ConnectRequest::kTaskStarted: {
      const v1::TaskStarted& started = message.task_started();
      std::optional<LeaseKeeper::Covered> covered =
          leases_.Current(started.lease_id(), started.task_id());
      if (covered.has_value() && covered->task->task().state() == v1::TASK_STATE_DISPATCHED) {
        MarkRunning(*covered->task, batch_.now_ms());
        leases_.Extend(started.lease_id());
      }
      break;
    }
    case v1::ConnectRequest::kHeartbeat:
      leases_.OnHeartbeat(stream_id, message.heartbeat());
      break;
    case v1::ConnectRequest::kOutputDelta: {
      const v1::OutputDelta& delta = message.output_delta();
      if (ActiveRun* active = leases_.CurrentRun(delta.lease_id(), delta.task_id())) {
        v1::RunEvent event;
        event.mutable_output_delta()->set_task_id(delta.task_id());
        event.mutable_output_delta()->set_text(delta.text());
        active->state->Emit(std::move(event));
      }
      break;
    }
    case v1::ConnectRequest::kTaskResult:
      OnResult(stream_id, *message.mutable_task_result());
      break;
    case v1::ConnectRequest::kTaskReturned: {
      const v1::TaskReturned& returned = message.task_returned();
      if (std::string job; TakeSummaryLease(returned.lease_id(), &job)) {
        // A draining worker handed the summary back: another worker writes it.
        leases_.Drop(returned.lease_id());
        queued_summaries_.push_back(job);
        v1::ConnectResponse ack;
        ack.mutable_result_ack()->set_task_id(returned.task_id());
        ack.mutable_result_ack()->set_lease_id(returned.lease_id());
        ack.mutable_result_ack()->set_accepted(true);
        workers_.SendTo(stream_id, std::move(ack));
        break;
      }
      std::optional<LeaseKeeper::Covered> covered =
          leases_.Current(returned.lease_id(), returned.task_id());
      if (covered.has_value()) {
        ApplyReturned(*covered->task, attempt_end::kReturned,
                      returned.reason().empty() ? "handed back by the worker" : returned.reason(),
                      batch_.now_ms());
        leases_.End(returned.lease_id());
      }
      // Acknowledged like a result, so a draining worker can stop waiting.
      v1::ConnectResponse ack;
      ack.mutable_result_ack()->set_task_id(returned.task_id());
      ack.mutable_result_ack()->set_lease_id(returned.lease_id());
      ack.mutable_result_ack()->set_accepted(covered.has_value());
      if (!covered.has_value()) {
        ack.mutable_result_ack()->set_reason("lease is no longer current");
      }
      workers_.SendTo(stream_id, std::move(ack));
      break;
    }
    case v1::ConnectRequest::kDraining:
      workers_.OnDraining(*worker, message.draining());
      break;
    case v1::ConnectRequest::kToolLookup: {
      // A tool the task may not call is neither served from the cache nor
      // joins its in-flight calls (scheduler/engine/tool_permission.h).
      const v1::ToolLookup& lookup = message.tool_lookup();
      const ActiveRun* active = leases_.CurrentRun(lookup.lease_id(), lookup.task_id());
      if (active != nullptr &&
          !CheckToolAllowed(*active->state, lookup.task_id(), lookup.tool_name()).ok()) {
        v1::ConnectResponse reply;
        reply.mutable_tool_decision()->set_request_id(lookup.request_id());
        reply.mutable_tool_decision()->set_outcome(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
        workers_.SendTo(stream_id, std::move(reply));
        break;
      }
      OnToolLookup(stream_id, *worker, lookup);
      break;
    }
    case v1::ConnectRequest::kObservation: {
      const v1::ToolObservation& reported = message.observation();
      const ActiveRun* active = leases_.CurrentRun(reported.lease_id(), reported.task_id());
      const absl::Status allowed =
          active == nullptr
              ? absl::OkStatus()
              : CheckToolAllowed(*active->state, reported.task_id(), reported.tool_name());
      if (allowed.ok()) {
        OnToolObservation(*worker, reported);
      } else {
        OnToolObservation(*worker, RefusedObservation(reported, allowed));
      }
      break;
    }
    case v1::ConnectRequest::kLlmGrantRequest:
      llm_.OnGrantRequest(stream_id, message.llm_grant_request());
      break;
    case v1::ConnectRequest::kLlmCallReport:
      llm_.OnCallReport(message.llm_call_report());
      break;
    case v1::ConnectRequest::kBatch:
      // In order, as if written one by one. The gateway refused nested
      // batches (common/stream_batch.h); one that got here is skipped.
      for (v1::ConnectRequest& inner : *message.mutable_batch()->mutable_messages()) {
        if (!inner.has_batch()) DoWorkerMessage(stream_id, inner);
      }
      break;
    default:
      break;
  }
}

void Engine::OnResult(uint64_t stream_id, v1::TaskResult& result) {
  v1::ConnectResponse ack_message;
  v1::ResultAck& ack = *ack_message.mutable_result_ack();
  ack.set_task_id(result.task_id());
  ack.set_lease_id(result.lease_id());
  if (std::string job; TakeSummaryLease(result.lease_id(), &job)) {
    leases_.End(result.lease_id());
    if (result.success()) {
      FinishSummary(job, result.output(), "");
    } else {
      FinishSummary(
          job, std::nullopt,
          absl::StrCat("summarizer failed: ", result.error(), "; older calls were left out"));
    }
    ack.set_accepted(true);
    workers_.SendTo(stream_id, std::move(ack_message));
    return;
  }
  std::optional<LeaseKeeper::Covered> covered =
      leases_.Current(result.lease_id(), result.task_id());
  if (!covered.has_value()) {
    // Fencing: the task was re-dispatched, cancelled or already finished.
    leases_.KeepLateExecution(result);
    ack.set_accepted(false);
    ack.set_reason(absl::StrCat("lease ", result.lease_id(), " is no longer current for task '",
                                result.task_id(), "'"));
    workers_.SendTo(stream_id, std::move(ack_message));
    return;
  }
  RunState* run = covered->run->state.get();
  store::TaskRecord* task = covered->task;
  leases_.End(result.lease_id());
  loop_stats_.results++;
  // The run's total adds what the task keeps (ApplyResult): the same
  // accepted numbers, never a worker's negative counts.
  AddUsage(*run->MutableRecord().mutable_run()->mutable_usage(),
           governance::AcceptedUsage(result.usage()));
  int64_t delay = options_.retry_backoff.DelayMs(task->agent_failures() + 1, batch_.rng());
  AttemptOutcome outcome;
  if (static_cast<int64_t>(result.output().size()) > options_.max_output_bytes) {
    outcome = FailAttempt(
        *task,
        absl::StrCat("output of ", result.output().size(),
                     " bytes is over the scheduler's limit of ", options_.max_output_bytes,
                     " bytes (--max-output-bytes); write large results to a "
                     "file and output its path"),
        batch_.now_ms(), delay);
  } else {
    outcome = ApplyResult(*task, result, batch_.now_ms(), delay);
  }
  CountAttempt(*task, outcome);
  log::Debug("task result")
      .With("run_id", run->run_id())
      .With("task_id", result.task_id())
      .With("attempt", task->task().attempt())
      .With("success", result.success())
      .With("retrying", outcome == AttemptOutcome::kRetrying)
      .WithNonEmpty("error", result.error());
  if (outcome == AttemptOutcome::kRetrying) {
    timers_.Add(
        {task->not_before_unix_ms(), TimerKind::kRetry, run->run_id(), task->task().task_id(), ""});
  }
  ack.set_accepted(true);
  workers_.SendTo(stream_id, std::move(ack_message));
}

void Engine::FireTimers() {
  while (std::optional<Timer> due = timers_.PopDue(batch_.now_ms())) {
    const Timer& timer = *due;
    if (timer.kind == TimerKind::kScheduling) {
      dispatcher_.CheckSchedulingDeadlines(timer.token, timer.due_ms);
      continue;
    }
    ActiveRun* active = runs_.active().Find(timer.run_id);
    if (active == nullptr) continue;
    RunState& run = *active->state;
    const store::TaskRecord* task = run.FindTask(timer.task_id);
    if (task == nullptr) continue;
    switch (timer.kind) {
      case TimerKind::kRetry:
        if (task->task().state() == v1::TASK_STATE_RETRYING) {
          MarkReady(run.MutableTask(timer.task_id), batch_.now_ms());
          batch_.Touch(timer.run_id);
        }
        break;
      case TimerKind::kTaskTimeout: {
        if (task->lease_id() != timer.token) break;
        // timeoutSeconds counts from the start, not the dispatch: a task
        // waiting in a worker's prefetch queue has not started. One not yet
        // started is checked again a timeout later (its lease covers a worker
        // that died meanwhile).
        const int64_t timeout_ms = task->assignment().timeout_seconds() * 1000LL;
        if (task->task().state() == v1::TASK_STATE_DISPATCHED) {
          timers_.Add({batch_.now_ms() + timeout_ms, TimerKind::kTaskTimeout, timer.run_id,
                       timer.task_id, timer.token});
          break;
        }
        if (task->started_unix_ms() + timeout_ms > batch_.now_ms()) {
          timers_.Add({task->started_unix_ms() + timeout_ms, TimerKind::kTaskTimeout, timer.run_id,
                       timer.task_id, timer.token});
          break;
        }
        const dispatch::Lease* lease = leases_.Find(timer.token);
        if (lease != nullptr && lease->stream_id != 0) {
          v1::ConnectResponse message;
          message.mutable_cancel()->set_task_id(timer.task_id);
          message.mutable_cancel()->set_lease_id(timer.token);
          message.mutable_cancel()->set_reason("task timed out");
          workers_.SendTo(lease->stream_id, std::move(message));
        }
        leases_.RememberTimedOut(timer.token, timer.run_id, *task);
        leases_.End(timer.token);
        store::TaskRecord& mutable_task = run.MutableTask(timer.task_id);
        int64_t delay =
            options_.retry_backoff.DelayMs(mutable_task.agent_failures() + 1, batch_.rng());
        AttemptOutcome outcome = TimeOutAttempt(
            mutable_task,
            absl::StrCat("timed out after ", mutable_task.assignment().timeout_seconds(),
                         "s (timeoutSeconds)"),
            batch_.now_ms(), delay);
        CountAttempt(mutable_task, outcome);
        if (outcome == AttemptOutcome::kRetrying) {
          timers_.Add({mutable_task.not_before_unix_ms(), TimerKind::kRetry, timer.run_id,
                       timer.task_id, ""});
        }
        batch_.Touch(timer.run_id);
        break;
      }
      case TimerKind::kApprovalTimeout:
        approvals_.OnTimeout(run, timer.task_id);
        break;
      case TimerKind::kScheduling:
        break;  // handled above: a check per agent, not per task
    }
  }
}

void Engine::QueueReadyTasks(RunState& run, const RunState::TaskIds* task_ids) {
  // `id` is the task's id as the run keeps it, which the entry views.
  auto queue = [&](absl::string_view id, const store::TaskRecord& task) {
    if (WaitsForApproval(task)) return approvals_.ArmTimeout(run.run_id(), task);
    dispatcher_.Queue(run, id, task);
  };
  if (task_ids == nullptr) {
    for (const auto& [id, task] : run.tasks()) queue(id, task);
    return;
  }
  for (const std::string& id : *task_ids) {
    const store::TaskRecord* task = run.FindTask(id);
    if (task != nullptr) queue(run.KeptTaskId(id), *task);
  }
}

}  // namespace taskboard::engine
