#include "scheduler/engine/workers/lease_keeper.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

std::optional<LeaseKeeper::Covered> LeaseKeeper::Current(absl::string_view lease_id,
                                                         absl::string_view task_id) {
  const dispatch::Lease* lease = table_.Find(lease_id);
  if (lease == nullptr || lease->task_id != task_id) return std::nullopt;
  ActiveRun* active = runs_->Find(lease->run_id);
  if (active == nullptr) return std::nullopt;
  RunState& run = *active->state;
  const store::TaskRecord* task = run.FindTask(task_id);
  if (task == nullptr || task->lease_id() != lease_id) return std::nullopt;
  v1::TaskState state = task->task().state();
  if (state != v1::TASK_STATE_DISPATCHED && state != v1::TASK_STATE_RUNNING) return std::nullopt;
  batch_->Touch(run.run_id());
  return Covered{active, &run.MutableTask(task_id)};
}

std::optional<LeaseKeeper::Covered> LeaseKeeper::TakeForResult(const v1::TaskResult& result) {
  std::optional<Covered> covered = Current(result.lease_id(), result.task_id());
  if (!covered.has_value()) {
    KeepLateExecution(result);
    return std::nullopt;
  }
  End(result.lease_id());
  return covered;
}

void LeaseKeeper::End(absl::string_view lease_id) {
  std::optional<dispatch::Lease> was_held;
  if (const dispatch::Lease* lease = table_.Find(lease_id); lease != nullptr) was_held = *lease;
  // The id may point into the entry removed here.
  const std::string id(lease_id);
  table_.Remove(id);
  for (WorkerListener* listener : listeners_) {
    listener->OnLeaseEnded(id, was_held.has_value() ? &*was_held : nullptr);
  }
}

void LeaseKeeper::Lose(const dispatch::Lease& lease, absl::string_view ended,
                       absl::string_view reason) {
  End(lease.lease_id);
  ActiveRun* active = runs_->Find(lease.run_id);
  if (active == nullptr) return;
  RunState& run = *active->state;
  const store::TaskRecord* current = run.FindTask(lease.task_id);
  if (current == nullptr || current->lease_id() != lease.lease_id) return;
  if (options_.metrics != nullptr) options_.metrics->TaskLeaseLost(current->task().agent());
  log::Warn("task lease lost; the task is re-dispatched (or fails after repeated losses)")
      .With("run_id", lease.run_id)
      .With("task_id", lease.task_id)
      .With("worker_id", lease.worker_id)
      .With("lease_id", lease.lease_id)
      .With("reason", reason);
  ApplyInfraLoss(run.MutableTask(lease.task_id), ended, reason, options_.max_infra_attempts,
                 batch_->now_ms());
  batch_->Touch(run.run_id());
}

void LeaseKeeper::Revoke(const std::vector<std::string>& lease_ids, const std::string& reason) {
  for (const std::string& lease_id : lease_ids) {
    const dispatch::Lease* lease = table_.Find(lease_id);
    if (lease == nullptr) continue;
    v1::ConnectResponse message;
    v1::Cancel& cancel = *message.mutable_cancel();
    cancel.set_task_id(lease->task_id);
    cancel.set_lease_id(lease_id);
    cancel.set_reason(reason.empty() ? "run cancelled" : reason);
    if (lease->stream_id != 0) streams_->SendTo(lease->stream_id, std::move(message));
    End(lease_id);
  }
}

size_t LeaseKeeper::OnHello(const dispatch::ConnectedWorker& worker, const v1::Hello& hello,
                            v1::Welcome& welcome) {
  // Tasks the worker still runs, or finished without an acknowledgement
  // (their result follows the Welcome), keep their lease if it is still
  // current: a scheduler restart or a broken stream costs no attempt.
  std::set<std::string> held;
  for (const v1::HeldTask& task : hello.held_tasks()) {
    dispatch::Lease* lease = table_.FindMutable(task.lease_id());
    // Only the worker the lease was given to, authenticated as it was then,
    // takes it back: a lease id alone proves nothing.
    if (lease != nullptr && lease->task_id == task.task_id() &&
        lease->worker_id == worker.worker_id &&
        (lease->identity.empty() || lease->identity == worker.identity)) {
      lease->identity = worker.identity;
      lease->stream_id = worker.stream_id;
      lease->worker_id = worker.worker_id;
      lease->expires_ms = batch_->now_ms() + options_.lease_timeout_ms;
      held.insert(task.lease_id());
    } else {
      welcome.add_revoked_lease_ids(task.lease_id());
    }
  }
  // Tasks this worker was given before (another stream, or before a
  // scheduler restart) that it no longer holds are lost: re-queue them now
  // instead of waiting for their leases to expire.
  for (const dispatch::Lease& lease : table_.OrphansOf(worker.worker_id)) {
    if (held.count(lease.lease_id) > 0) continue;
    // Another token using this worker id says nothing about the holder's
    // tasks: they wait for their holder or their lease's end.
    if (!lease.identity.empty() && lease.identity != worker.identity) continue;
    if (NeverDelivered(lease, hello.incarnation())) continue;
    Lose(lease, attempt_end::kWorkerLost,
         absl::StrCat("worker '", worker.worker_id, "' restarted without it"));
  }
  return held.size();
}

bool LeaseKeeper::NeverDelivered(const dispatch::Lease& lease, absl::string_view incarnation) {
  ActiveRun* active = runs_->Find(lease.run_id);
  if (active == nullptr) return false;
  RunState& run = *active->state;
  const store::TaskRecord* task = run.FindTask(lease.task_id);
  // The same process reconnects without a task it never reported started:
  // the assignment was lost with the stream (or with a scheduler that
  // committed the dispatch and died before sending it). Nothing ran, so the
  // task is queued again without using an attempt.
  if (task == nullptr || task->lease_id() != lease.lease_id ||
      task->task().state() != v1::TASK_STATE_DISPATCHED || incarnation.empty() ||
      task->worker_incarnation() != incarnation) {
    return false;
  }
  End(lease.lease_id);
  log::Info("task assignment never reached its worker; queued again without using an attempt")
      .With("run_id", lease.run_id)
      .With("task_id", lease.task_id)
      .With("worker_id", lease.worker_id)
      .With("lease_id", lease.lease_id);
  ApplyReturned(run.MutableTask(lease.task_id), attempt_end::kWorkerLost,
                absl::StrCat("the assignment never reached worker '", lease.worker_id,
                             "' (its stream broke); queued again without using an attempt"),
                batch_->now_ms());
  batch_->Touch(run.run_id());
  return true;
}

void LeaseKeeper::Detach(uint64_t stream_id) {
  for (const dispatch::Lease& lease : table_.HeldBy(stream_id)) {
    table_.FindMutable(lease.lease_id)->stream_id = 0;
  }
}

void LeaseKeeper::Extend(absl::string_view lease_id) {
  if (dispatch::Lease* lease = table_.FindMutable(lease_id); lease != nullptr) {
    lease->expires_ms = batch_->now_ms() + options_.lease_timeout_ms;
  }
}

void LeaseKeeper::OnHeartbeat(uint64_t stream_id, const v1::Heartbeat& heartbeat) {
  for (const std::string& lease_id : heartbeat.lease_ids()) {
    dispatch::Lease* lease = table_.FindMutable(lease_id);
    if (lease != nullptr && lease->stream_id == stream_id) {
      lease->expires_ms = batch_->now_ms() + options_.lease_timeout_ms;
    }
  }
}

void LeaseKeeper::RememberTimedOut(const std::string& lease_id, const std::string& run_id,
                                   const store::TaskRecord& task) {
  // A worker that died never reports: bound what waits for one.
  constexpr size_t kMaxRemembered = 10'000;
  if (timed_out_.size() >= kMaxRemembered) timed_out_.clear();
  timed_out_[lease_id] = {run_id, task.task().task_id(), task.task().attempt()};
}

bool LeaseKeeper::KeepLateExecution(const v1::TaskResult& result) {
  auto entry = timed_out_.find(result.lease_id());
  if (entry == timed_out_.end()) return false;
  const TimedOutAttempt attempt = std::move(entry->second);
  timed_out_.erase(entry);
  if (attempt.task_id != result.task_id()) return false;
  // Only while the record still describes the timed-out attempt: waiting to
  // retry or failed for good, not dispatched again.
  const auto describes_attempt = [&](const store::TaskRecord& task) {
    return task.task().attempt() == attempt.attempt &&
           (task.task().state() == v1::TASK_STATE_RETRYING ||
            task.task().state() == v1::TASK_STATE_FAILED);
  };
  const auto keep = [&](store::TaskRecord& task) {
    v1::TaskExecution& execution = *task.mutable_execution();
    execution = result.execution();
    execution.set_stopped(true);
    execution.set_stop_reason("timeout");
  };
  if (ActiveRun* active = runs_->Find(attempt.run_id); active != nullptr) {
    RunState& state = *active->state;
    const store::TaskRecord* task = state.FindTask(attempt.task_id);
    if (task == nullptr || !describes_attempt(*task)) return false;
    keep(state.MutableTask(attempt.task_id));
    batch_->Touch(attempt.run_id);
    return true;
  }
  // The timeout was the run's last act: amend the stored task.
  const std::string key = store::keys::Task(attempt.run_id, attempt.task_id);
  absl::StatusOr<std::optional<std::string>> stored =
      options_.store->Get(store::Column::kTasks, key);
  store::TaskRecord task;
  if (!stored.ok() || !stored->has_value() || !task.ParseFromString(**stored) ||
      !describes_attempt(task)) {
    return false;
  }
  keep(task);
  batch_->writes().Put(store::Column::kTasks, key, task.SerializeAsString());
  return true;
}

bool LeaseKeeper::SweepDue(int64_t now_ms) {
  if (now_ms - last_sweep_ms_ < 200) return false;
  last_sweep_ms_ = now_ms;
  return true;
}

void LeaseKeeper::ExpireDue(int64_t before_ms) {
  for (const dispatch::Lease& lease : table_.ExpireBefore(before_ms)) {
    if (lease.stream_id != 0) {
      // The stream is open but silent: make sure the worker stops.
      v1::ConnectResponse message;
      message.mutable_cancel()->set_task_id(lease.task_id);
      message.mutable_cancel()->set_lease_id(lease.lease_id);
      message.mutable_cancel()->set_reason("lease expired");
      streams_->SendTo(lease.stream_id, std::move(message));
      streams_->Silence(lease.stream_id);
    }
    Lose(lease, attempt_end::kLeaseExpired,
         absl::StrCat("worker '", lease.worker_id, "' sent no heartbeat for ",
                      options_.lease_timeout_ms, " ms"));
  }
}

}  // namespace taskboard::engine
