#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_MANAGER_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_MANAGER_H_

// The runs: submit, cancel and resume, the active runs and their drivers,
// child runs (nested_runs.h), runs starting in the next batch
// (starting_runs.h), idempotency keys, retention and the watchers of run
// events. Recovery at start is run_recovery.h's.
//
// Talks to the workers only through LeaseRevoker (to stop the tasks of a
// run that ends) and to the tool calls through RunListener. Every method
// runs on the engine's loop thread; callbacks (`done`) are answered on the
// commit thread after the batch that makes their answer durable, or at once
// for a refusal that changed nothing.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/otel/tracer.h"
#include "scheduler/dispatch/worker_registry.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/drivers/driver.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/runs/idempotency_keys.h"
#include "scheduler/engine/runs/lease_revoker.h"
#include "scheduler/engine/runs/nested_runs.h"
#include "scheduler/engine/runs/retention.h"
#include "scheduler/engine/runs/run_listener.h"
#include "scheduler/engine/runs/run_requests.h"
#include "scheduler/engine/runs/starting_runs.h"
#include "scheduler/engine/runs/watch_hub.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

class RunManager {
 public:
  struct Options {
    store::Store* store = nullptr;  // the loop's view of the store
    RunLimits limits;
    // --default-agent; "": the first registered agent of the workers.
    std::string default_agent;
    Retention::Options retention;
    EngineMetrics* metrics = nullptr;  // may be null
    // Null or not enabled: runs get no trace context (run_trace.h).
    const otel::Tracer* tracer = nullptr;
  };
  // Everything outlives this. `revoker` and `listener` may be members of
  // the engine constructed after this one: they are not used before the
  // first batch.
  RunManager(Options options, LoopBatch* batch, TimerQueue* timers, LeaseRevoker* revoker,
             RunListener* listener);
  RunManager(const RunManager&) = delete;
  RunManager& operator=(const RunManager&) = delete;

  // SubmitRun: `done` after the batch that writes the run. With an
  // idempotency key that created a run already, that run (after this batch
  // too). UNIMPLEMENTED for a kind this version cannot run;
  // FAILED_PRECONDITION when the flow leaves an agent out and no worker in
  // `workers` offers the default (default_agent_choice.h); a store read
  // error as is. With `started_by`, also the errors of FindStartingRun and
  // CheckChildDepth (started_runs.h).
  void Submit(SubmitRequest& request, const dispatch::WorkerRegistry& workers,
              std::function<void(absl::StatusOr<SubmitResult>)>& done);
  // Submit's work, answered at once: the run is written by this batch, so
  // its id may be shown to nobody before the batch commits (a schedule
  // writes it into its own record in the same batch). Errors as Submit's.
  absl::StatusOr<SubmitResult> SubmitNow(SubmitRequest& request,
                                         const dispatch::WorkerRegistry& workers);
  // NOT_FOUND (or the store's error) for a run that is neither active nor
  // stored; a finished run answers its status unchanged.
  void Cancel(const std::string& run_id, const std::string& reason,
              std::function<void(absl::StatusOr<v1::RunStatus>)>& done);
  // NOT_FOUND; FAILED_PRECONDITION for a run that is active, not resumable,
  // a child run, being deleted, or whose new budget is not above its bill.
  void Resume(const std::string& run_id, const ResumeBudget& budget,
              std::function<void(absl::StatusOr<ResumeResult>)>& done);

  // Advances the driver of every touched run that has started.
  void AdvanceTouched();

  // Creates and activates a run of `request` (a child of `parent`, carrying
  // out its task `parent_task_id`, when `parent` is set). Returns its id;
  // UNIMPLEMENTED for a flow kind this version cannot run;
  // FAILED_PRECONDITION for a child deeper than --max-run-depth. A child run's
  // driver starts at once; a submitted run's starts in the next batch
  // (StartingRuns), so SubmitRun replies without waiting for its tasks.
  enum class DriverStart { kNow, kNextBatch };
  absl::StatusOr<std::string> CreateRun(SubmitRequest& request, const v1::Run* parent,
                                        const std::string& parent_task_id, DriverStart start);
  // Puts a loaded, resumable run back to running under its driver's Resume
  // and activates it (ResumeRun, and a parent's resume reaching its children).
  absl::StatusOr<ResumeResult> ResumeLoaded(std::unique_ptr<RunState> state);
  // Reads a run that is not active back from the store.
  absl::StatusOr<std::unique_ptr<RunState>> LoadRun(const std::string& run_id);
  // A run's status as the loop knows it: an active run's from memory (ahead
  // of the store while its batch is written), another's from the store;
  // nothing for a run that is neither (deleted by retention, say). For the
  // views of what schedules and triggers started.
  std::optional<v1::RunStatus> StatusOf(const std::string& run_id);
  // Cancels an active run and tells the workers holding its tasks to stop.
  void CancelActive(RunState& run, const std::string& reason);
  // A kRunDeadline timer: ends the run `timed_out` the way CancelActive
  // ends it, if it is still active and its deadline (which a ResumeRun
  // moves) has passed; otherwise does nothing (docs/semantics.md#run-deadlines).
  void OnDeadline(const std::string& run_id);
  // Activates `state` (touched) under `driver`, and arms its deadline, if it
  // has one: for a new run, a resumed one and one recovered at start alike.
  ActiveRun& Activate(std::unique_ptr<RunState> state, std::unique_ptr<Driver> driver,
                      v1::FlowSpec spec);

  ActiveRuns& active() { return active_; }
  const ActiveRuns& active() const { return active_; }
  StartingRuns& starting() { return starting_; }
  IdempotencyKeys& idempotency() { return idempotency_; }
  Retention& retention() { return retention_; }
  NestedRuns& nested() { return nested_; }
  WatchHub& watch_hub() { return watch_hub_; }
  const Options& options() const { return options_; }

 private:
  // SubmitNow for a run a task's agent starts (started_runs.h): a child of
  // the task's run. Errors as FindStartingRun's and CreateRun's.
  absl::StatusOr<SubmitResult> SubmitStartedBy(SubmitRequest& request);

  const Options options_;
  LoopBatch* const batch_;
  TimerQueue* const timers_;
  LeaseRevoker* const revoker_;
  ActiveRuns active_;
  StartingRuns starting_;
  IdempotencyKeys idempotency_;
  Retention retention_;
  NestedRuns nested_;
  WatchHub watch_hub_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_RUN_MANAGER_H_
