#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_LEASE_KEEPER_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_LEASE_KEEPER_H_

// The leases: which worker holds which task, until when (--lease-timeout-ms;
// docs/operations.md#worker-drain-and-terminationgraceperiodseconds). A
// lease is the fence between attempts: only the worker holding a task's
// current lease may report on it, and a lease ends exactly once (result,
// hand-back, loss, revocation, timeout), telling the WorkerListeners.
// A worker that falls silent for the lease timeout loses its leases, and
// their tasks are queued again (or fail after repeated losses).
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "scheduler/dispatch/lease_table.h"
#include "scheduler/dispatch/worker_registry.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/workers/worker_listener.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "scheduler/store/records.pb.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class LeaseKeeper {
 public:
  struct Options {
    store::Store* store = nullptr;  // the loop's view: stored tasks of ended runs
    int64_t lease_timeout_ms = 30'000;
    int max_infra_attempts = 3;
    EngineMetrics* metrics = nullptr;  // may be null
  };
  // Everything outlives this.
  LeaseKeeper(Options options, LoopBatch* batch, ActiveRuns* runs, WorkerStreams* streams)
      : options_(options), batch_(batch), runs_(runs), streams_(streams) {}
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // Told when a lease ends or a stream closes, in the order added.
  void AddListener(WorkerListener* listener) { listeners_.push_back(listener); }

  struct Covered {
    ActiveRun* run;
    store::TaskRecord* task;
  };
  // The task `lease_id` covers now (its run touched: the caller may change
  // it), or nullopt when the lease is not the task's current one (fencing:
  // re-dispatched, cancelled, finished).
  std::optional<Covered> Current(absl::string_view lease_id, absl::string_view task_id);
  // A result's lease: Current, then End. nullopt when it is not current,
  // after keeping a timed-out attempt's late execution (KeepLateExecution).
  std::optional<Covered> TakeForResult(const v1::TaskResult& result);
  // Current's run, or null.
  ActiveRun* CurrentRun(absl::string_view lease_id, absl::string_view task_id) {
    std::optional<Covered> covered = Current(lease_id, task_id);
    return covered.has_value() ? covered->run : nullptr;
  }

  void Grant(dispatch::Lease lease) { table_.Add(std::move(lease)); }
  const dispatch::Lease* Find(absl::string_view lease_id) const { return table_.Find(lease_id); }
  const dispatch::LeaseTable& table() const { return table_; }
  // Ends `lease_id`; the listeners get the entry it had, if any.
  void End(absl::string_view lease_id);
  // Removes `lease_id` without telling the listeners: a summarizer's job
  // handed back goes to another worker, nothing of the lease is lost.
  void Drop(absl::string_view lease_id) { table_.Remove(lease_id); }
  // Ends `lease` and, if it still covers its task, records the attempt as
  // lost (`ended` is the attempt_end word, `reason` why) and queues the task
  // again, or fails it after max_infra_attempts losses.
  void Lose(const dispatch::Lease& lease, absl::string_view ended, absl::string_view reason);
  // A Cancel to each holder's open stream, then End (WorkerManager's
  // LeaseRevoker).
  void Revoke(const std::vector<std::string>& lease_ids, const std::string& reason);

  // A Hello: re-attaches the leases it holds (same worker id, and the
  // identity they were given to) to the new stream, adds the others to
  // `welcome`'s revoked ids, and loses (or re-queues, NeverDelivered) the
  // worker's leases it no longer holds. Returns how many it kept.
  size_t OnHello(const dispatch::ConnectedWorker& worker, const v1::Hello& hello,
                 v1::Welcome& welcome);
  // The stream closed: its leases stay until they expire or the worker
  // reconnects (it may still run the tasks); no stream reaches them now.
  // WorkerManager::Disconnected then tells the listeners.
  void Detach(uint64_t stream_id);
  // The worker started the task, or sent a heartbeat: its lease lasts
  // another lease timeout from now.
  void Extend(absl::string_view lease_id);
  void OnHeartbeat(uint64_t stream_id, const v1::Heartbeat& heartbeat);

  // A task timed out under `lease_id`: the report that follows the cancel is
  // not a result, but it still carries the attempt's execution record.
  void RememberTimedOut(const std::string& lease_id, const std::string& run_id,
                        const store::TaskRecord& task);
  // Keeps the execution record of a late report for a timed-out lease
  // (in memory, or amending the stored task of a run that ended); false
  // when `result` is not one.
  bool KeepLateExecution(const v1::TaskResult& result);

  // Whether the expiry sweep is due (every 200 ms); if so it counts as done.
  bool SweepDue(int64_t now_ms);
  // Loses every lease that expired before `before_ms`: the worker is told
  // to stop on its open stream, which gets no new work until it speaks.
  void ExpireDue(int64_t before_ms);
  // When the loop must wake for the next sweep; nullopt without leases.
  std::optional<int64_t> NextSweepMs() const {
    if (table_.size() == 0) return std::nullopt;
    return last_sweep_ms_ + 200;
  }

 private:
  // On a reconnect: when the worker process `incarnation` was given the
  // lease's task but never started it (the assignment was lost), ends the
  // lease and queues the task again without using an attempt; true then.
  bool NeverDelivered(const dispatch::Lease& lease, absl::string_view incarnation);

  const Options options_;
  LoopBatch* const batch_;
  ActiveRuns* const runs_;
  WorkerStreams* const streams_;
  std::vector<WorkerListener*> listeners_;
  dispatch::LeaseTable table_;
  // Timed-out leases whose worker has not reported yet.
  struct TimedOutAttempt {
    std::string run_id;
    std::string task_id;
    int attempt = 0;
  };
  absl::flat_hash_map<std::string, TimedOutAttempt> timed_out_;  // by lease id
  int64_t last_sweep_ms_ = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_LEASE_KEEPER_H_
