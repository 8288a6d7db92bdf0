#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_DISPATCHER_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_DISPATCHER_H_

// The ready queue and the dispatch: READY tasks wait per agent, in priority
// and readiness order, until a connected worker offering the agent has a
// free slot (a credit); each dispatch grants a lease and sends the task with
// the prior work its source chooses. Ready tasks of an agent no connected
// worker offers fail after the scheduling timeout (--scheduling-timeout-ms,
// decision 28; scheduling_deadlines.h), checked per agent by a kScheduling
// timer.
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "scheduler/dispatch/ready_queue.h"
#include "scheduler/engine/core/clock.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/prior_work_source.h"
#include "scheduler/engine/workers/prior_work_tracer.h"
#include "scheduler/engine/workers/scheduling_deadlines.h"
#include "scheduler/engine/workers/trace_content_policy.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::engine {

class Dispatcher {
 public:
  struct Options {
    int64_t lease_timeout_ms = 30'000;
    EngineMetrics* metrics = nullptr;  // may be null
  };
  // Everything outlives this. Start must run before the first batch.
  Dispatcher(Options options, LoopBatch* batch, TimerQueue* timers, ActiveRuns* runs,
             WorkerStreams* streams, LeaseKeeper* leases)
      : options_(options),
        batch_(batch),
        timers_(timers),
        runs_(runs),
        streams_(streams),
        leases_(leases) {}
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Every agent counts as last offered at the clock's now: tasks recovered
  // from the store get the whole scheduling timeout for workers to reconnect.
  void Start(const Clock* clock, int64_t scheduling_timeout_ms);
  void SetPriorWork(PriorWorkSource* source) { prior_work_ = source; }
  // Null (the default): prior-work selections make no span. Outlives this.
  void SetPriorWorkTracer(const PriorWorkTracer* tracer) { prior_work_tracer_ = tracer; }
  // Null (the default): every tenant's traced assignments allow prompt and
  // completion text in spans (the worker's flag still decides). Outlives this.
  void SetTraceContentPolicy(const TraceContentPolicy* policy) { trace_content_ = policy; }

  // Queues `task` if READY; `kept_id` is its id as `run` keeps it, which the
  // queue entry views.
  void Queue(RunState& run, absl::string_view kept_id, const store::TaskRecord& task);
  // Sends ready tasks while workers have credits (and the source's summary
  // jobs before and after them).
  void Dispatch();

  // A worker offering `agent` connected.
  void AgentOffered(const std::string& agent) { scheduling_.AgentOffered(agent); }
  // The last worker offering `agent` left: its ready tasks fail after the
  // scheduling timeout counted from now, like tasks queued while nobody
  // offered it.
  void AgentLost(const std::string& agent);
  // The kScheduling timer of `agent` due at `due_ms`: unless a worker offers
  // the agent now, fails its queued tasks whose deadline passed and arms the
  // next check.
  void CheckSchedulingDeadlines(const std::string& agent, int64_t due_ms);

  int64_t dispatched() const { return dispatched_; }
  const dispatch::ReadyQueue& ready() const { return ready_; }

 private:
  // Makes sure `agent`'s check runs by the deadline of a task of it ready
  // since `ready_ms`.
  void ArmSchedulingCheck(const std::string& agent, int64_t ready_ms);

  const Options options_;
  LoopBatch* const batch_;
  TimerQueue* const timers_;
  ActiveRuns* const runs_;
  WorkerStreams* const streams_;
  LeaseKeeper* const leases_;
  const Clock* clock_ = nullptr;
  PriorWorkSource* prior_work_ = nullptr;
  const PriorWorkTracer* prior_work_tracer_ = nullptr;
  const TraceContentPolicy* trace_content_ = nullptr;
  dispatch::ReadyQueue ready_;
  SchedulingDeadlines scheduling_{0, 0};  // set by Start
  int64_t dispatched_ = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_DISPATCHER_H_
