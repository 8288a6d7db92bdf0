#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_MANAGER_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_MANAGER_H_

// The workers' side of the engine: the connected streams (worker_streams.h),
// the leases they hold (lease_keeper.h), the dispatch of ready tasks to
// them (dispatcher.h), what becomes of a dispatched task (task_outcomes.h),
// and what happens when a stream comes and goes. A
// Hello re-attaches the leases the worker still holds and loses (or queues
// again) the ones it no longer does (docs/semantics.md#leases-and-fencing);
// a closed stream keeps its leases until they expire or the worker comes
// back. The runs stop workers through this (LeaseRevoker); the tool calls
// and the LLM grants follow leases and streams as WorkerListeners.
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/dispatch/worker_channel.h"
#include "scheduler/engine/core/clock.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/runs/lease_revoker.h"
#include "scheduler/engine/workers/dispatcher.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/prior_work_source.h"
#include "scheduler/engine/workers/retry_backoff.h"
#include "scheduler/engine/workers/task_outcomes.h"
#include "scheduler/engine/workers/worker_listener.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class WorkerManager : public LeaseRevoker {
 public:
  struct Options {
    store::Store* store = nullptr;  // the loop's view (LeaseKeeper::Options)
    std::string scheduler_id = "scheduler";
    int64_t lease_timeout_ms = 30'000;
    int64_t heartbeat_interval_ms = 5'000;
    int max_infra_attempts = 3;
    RetryBackoff retry_backoff;
    int64_t max_output_bytes = 1 << 20;
    EngineMetrics* metrics = nullptr;  // may be null
  };
  // Everything outlives this. Start must run before the first batch.
  WorkerManager(Options options, LoopBatch* batch, TimerQueue* timers, ActiveRuns* runs);
  WorkerManager(const WorkerManager&) = delete;
  WorkerManager& operator=(const WorkerManager&) = delete;

  // The dispatcher's scheduling deadlines count from the clock's now.
  void Start(const Clock* clock, int64_t scheduling_timeout_ms) {
    dispatcher_.Start(clock, scheduling_timeout_ms);
  }
  void SetPriorWork(PriorWorkSource* source) {
    dispatcher_.SetPriorWork(source);
    outcomes_.SetPriorWork(source);
  }
  // Told when a lease ends, a stream closes and a worker's last stream
  // closes, in the order added.
  void AddListener(WorkerListener* listener);

  // A stream's Hello: registers it for `identity`, re-attaches the leases it
  // holds (same worker id and identity), loses the worker's other leases (or
  // queues their tasks again without an attempt when the assignment never
  // reached it: LeaseKeeper::OnHello), and answers with a Welcome.
  void Hello(uint64_t stream_id, const v1::Hello& hello,
             std::shared_ptr<dispatch::WorkerChannel> channel, const std::string& identity);
  // The stream closed: its leases stay (the worker may still run the tasks)
  // but no stream reaches them; the listeners hear OnStreamClosed, then,
  // when it was the worker's last stream, OnWorkerGone. Ready tasks of an
  // agent nobody offers any more fail after the scheduling timeout.
  void Disconnected(uint64_t stream_id);
  // LeaseRevoker: a Cancel to each holder's open stream, then the lease ends.
  void Revoke(const std::vector<std::string>& lease_ids, const std::string& reason) override {
    leases_.Revoke(lease_ids, reason);
  }
  // A recovered run: its retry timers, and a lease (and a timeout) for each
  // task a worker may still run, until the worker reconnects holding it or
  // the lease expires.
  void Rearm(ActiveRun& recovered);
  // A kRetry, kTaskTimeout or kScheduling timer (TaskOutcomes, Dispatcher).
  void OnTimer(const Timer& timer);

  WorkerStreams& streams() { return streams_; }
  const WorkerStreams& streams() const { return streams_; }
  LeaseKeeper& leases() { return leases_; }
  const LeaseKeeper& leases() const { return leases_; }
  Dispatcher& dispatcher() { return dispatcher_; }
  const Dispatcher& dispatcher() const { return dispatcher_; }
  TaskOutcomes& outcomes() { return outcomes_; }
  const TaskOutcomes& outcomes() const { return outcomes_; }

 private:
  const Options options_;
  LoopBatch* const batch_;
  TimerQueue* const timers_;
  std::vector<WorkerListener*> listeners_;
  WorkerStreams streams_;
  LeaseKeeper leases_;
  Dispatcher dispatcher_;
  TaskOutcomes outcomes_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_WORKER_MANAGER_H_
