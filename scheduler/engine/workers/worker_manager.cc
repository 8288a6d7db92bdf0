#include "scheduler/engine/workers/worker_manager.h"

#include <functional>
#include <set>
#include <utility>

#include "common/log/log.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/child_runs.h"

namespace taskboard::engine {

WorkerManager::WorkerManager(Options options, LoopBatch* batch, TimerQueue* timers,
                             ActiveRuns* runs)
    : options_(std::move(options)),
      batch_(batch),
      timers_(timers),
      streams_(batch),
      leases_({options_.store, options_.lease_timeout_ms, options_.max_infra_attempts,
               options_.metrics},
              batch, runs, &streams_),
      dispatcher_({options_.lease_timeout_ms, options_.metrics}, batch, timers, runs, &streams_,
                  &leases_),
      outcomes_({options_.max_output_bytes, options_.retry_backoff, options_.metrics}, batch,
                timers, runs, &streams_, &leases_) {}

void WorkerManager::AddListener(WorkerListener* listener) {
  listeners_.push_back(listener);
  leases_.AddListener(listener);
}

void WorkerManager::Hello(uint64_t stream_id, const v1::Hello& hello,
                          std::shared_ptr<dispatch::WorkerChannel> channel,
                          const std::string& identity) {
  dispatch::ConnectedWorker& worker = streams_.Add(stream_id, hello, std::move(channel), identity);
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
  streams_.SendTo(stream_id, std::move(welcome_message));
}

void WorkerManager::Disconnected(uint64_t stream_id) {
  leases_.Detach(stream_id);
  // Its model calls waiting for a grant are asked again on its next stream.
  for (WorkerListener* listener : listeners_) listener->OnStreamClosed(stream_id);
  dispatch::ConnectedWorker* worker = streams_.Find(stream_id);
  if (worker == nullptr) return;
  std::set<std::string, std::less<>> agents = worker->agents;
  std::string worker_id = worker->worker_id;
  log::Info("worker disconnected").With("worker_id", worker_id);
  streams_.Remove(stream_id);
  // The worker is out of touch unless another stream of the same worker is
  // still open: its waits end and the tool calls it runs for others are held
  // for its return (docs/tool-cache.md#when-an-executing-worker-is-out-of-touch).
  // Told after the stream left, so nothing is answered on it.
  if (streams_.registry().FindByWorkerId(worker_id).empty()) {
    for (WorkerListener* listener : listeners_) listener->OnWorkerGone(worker_id);
  }
  // Ready tasks of an agent no connected worker offers any more fail after
  // the scheduling timeout counted from now, like tasks queued while nobody
  // offered it.
  for (const std::string& agent : agents) {
    if (streams_.registry().AnyOffers(agent)) continue;
    dispatcher_.AgentLost(agent);
  }
}

void WorkerManager::OnTimer(const Timer& timer) {
  switch (timer.kind) {
    case TimerKind::kRetry:
      outcomes_.OnRetryDue(timer);
      break;
    case TimerKind::kTaskTimeout:
      outcomes_.OnTimeoutDue(timer);
      break;
    case TimerKind::kScheduling:
      dispatcher_.CheckSchedulingDeadlines(timer.token, timer.due_ms);
      break;
    case TimerKind::kApprovalTimeout:
    case TimerKind::kRunDeadline:
      break;  // the approvals' and the runs' own
  }
}

void WorkerManager::Rearm(ActiveRun& recovered) {
  RunState& run = *recovered.state;
  const std::string& run_id = run.run_id();
  for (const auto& [task_id, task] : run.tasks()) {
    switch (task.task().state()) {
      case v1::TASK_STATE_RETRYING:
        timers_->Add({task.not_before_unix_ms(), TimerKind::kRetry, run_id, task_id, ""});
        break;
      case v1::TASK_STATE_DISPATCHED:
      case v1::TASK_STATE_RUNNING:
        if (AwaitsChildRun(task)) break;  // no worker holds it: its child run does
        // A person holds it; the engine re-arms its deadline when it queues
        // the run's tasks.
        if (WaitsForApproval(task)) break;
        // The worker may still be running it: wait for it to reconnect
        // holding the lease, or for the lease to expire.
        leases_.Grant({task.lease_id(), run_id, task_id, task.task().worker_id(), "", 0,
                       batch_->now_ms() + options_.lease_timeout_ms});
        if (task.assignment().timeout_seconds() > 0) {
          timers_->Add({task.dispatched_unix_ms() + task.assignment().timeout_seconds() * 1000LL,
                        TimerKind::kTaskTimeout, run_id, task_id, task.lease_id()});
        }
        break;
      default:
        break;
    }
  }
}

}  // namespace taskboard::engine
