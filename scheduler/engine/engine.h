#ifndef TASKBOARD_SCHEDULER_ENGINE_ENGINE_H_
#define TASKBOARD_SCHEDULER_ENGINE_ENGINE_H_

// The run engine: the single owner of every active run's state, and the
// dispatcher that hands ready tasks to connected workers.
//
// One loop thread takes a batch of posted events (submissions, worker
// messages, cancellations, timers), applies each to its run's driver and the
// task lifecycle, assigns ready tasks to workers with free slots, then commits
// every resulting change as ONE store WriteBatch (group commit), and only after
// that batch is written are its effects performed: assignments and acks to
// workers, replies to callers, events to watchers. The write and the effects
// run on the commit pipeline's thread (commit_pipeline.h) while the loop
// builds the next batch. So nothing anyone can observe is ever lost by a crash,
// and a dispatch is durable before the worker sees it (docs/semantics.md#delivery-and-durability).
//
// All public methods are thread-safe and never block on the loop: they post
// and return; callbacks run on the commit pipeline's thread, in batch order,
// after their batch is written, and must not block. If a commit fails the process aborts: memory is
// ahead of the disk, and a restart recovers the durable state.
//
// Runs that finish leave memory; reads (GetRun, ListRuns, GetTask, replays)
// go to the store (run_reader.h), which is consistent per committed batch.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/otel/tracer.h"
#include "scheduler/cache/tool_cache.h"
#include "scheduler/dispatch/worker_channel.h"
#include "scheduler/engine/approvals/approval_event.h"
#include "scheduler/engine/approvals/approval_limits.h"
#include "scheduler/engine/approvals/approval_metrics.h"
#include "scheduler/engine/approvals/approvals.h"
#include "scheduler/engine/core/acked_store.h"
#include "scheduler/engine/core/clock.h"
#include "scheduler/engine/core/commit_pipeline.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/event_poster.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/core/timer_queue.h"
#include "scheduler/engine/llm/llm_grants.h"
#include "scheduler/engine/llm/llm_metrics.h"
#include "scheduler/engine/run_storage/run_storage.h"
#include "scheduler/engine/run_storage/run_storage_limits.h"
#include "scheduler/engine/runs/run_manager.h"
#include "scheduler/engine/runs/run_requests.h"
#include "scheduler/engine/runs/watch_hub.h"
#include "scheduler/engine/schedules/schedule_metrics.h"
#include "scheduler/engine/schedules/schedule_run_source.h"
#include "scheduler/engine/schedules/schedules.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/engine/tool_calls/ledger_book.h"
#include "scheduler/engine/tool_calls/policy_service_caller.h"
#include "scheduler/engine/tool_calls/tool_calls.h"
#include "scheduler/engine/traces/run_traces.h"
#include "scheduler/engine/triggers/trigger_metrics.h"
#include "scheduler/engine/triggers/trigger_run_source.h"
#include "scheduler/engine/triggers/triggers.h"
#include "scheduler/engine/workers/retry_backoff.h"
#include "scheduler/engine/workers/worker_manager.h"
#include "scheduler/governance/llm_limits.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/scheduler.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

struct EngineOptions {
  store::Store* store = nullptr;  // required; outlives the engine
  const Clock* clock = nullptr;   // default: the system clock
  std::string scheduler_id = "scheduler";
  // A worker silent this long loses its tasks (docs/semantics.md#leases-and-fencing).
  int64_t lease_timeout_ms = 30'000;
  int64_t heartbeat_interval_ms = 5'000;
  // A ready task whose agent no connected worker offers fails after this.
  int64_t scheduling_timeout_ms = 60'000;
  // The agent of whatever a submitted flow leaves without one
  // (--default-agent); "": the first registered agent of the connected
  // workers (default_agent_choice.h).
  std::string default_agent;
  int max_infra_attempts = 3;
  RetryBackoff retry_backoff;
  int64_t max_output_bytes = 1 << 20;
  // What one run may fan out to (map items, plans, interpolation, tool
  // results, child runs, events).
  RunLimits limits;
  // What a person's decision may carry (--approval-max-*).
  ApprovalLimits approval_limits;
  size_t max_batch_events = 2048;
  // Finished root runs older than this are deleted with everything they
  // left (--retention; run_deletion.h); 0: kept forever.
  int64_t retention_ms = 0;
  // Keys deleted per loop iteration while a run is being deleted.
  size_t retention_keys_per_batch = 2'000;
  // Bounds on the shared tool cache (--cache-max-ttl,
  // --cache-max-entries-per-tenant).
  cache::CacheLimits cache_limits;
  // How long identical cacheable calls wait for one whose executing worker
  // is out of touch (--tool-call-hold-ms; docs/tool-cache.md).
  int64_t tool_call_hold_ms = 5'000;
  // Bytes of observation bodies the ledgers keep in memory, shared by all
  // requests (--ledger-cache-mb; ledger_book.h); the rest stay in the store.
  int64_t ledger_cache_bytes = LedgerBook::kDefaultCacheBytes;
  // Reaches client-run PolicyServices; null: external policies always use
  // their declared_deps_only fallback. Outlives the engine.
  PolicyServiceCaller* policy_service = nullptr;
  // Prometheus hooks, called on the loop thread (StoreCommitted on the
  // commit thread); null: no metrics. Outlives the engine.
  EngineMetrics* metrics = nullptr;
  LlmMetrics* llm_metrics = nullptr;
  ApprovalMetrics* approval_metrics = nullptr;
  // Told when an approval starts waiting or is decided (the approval
  // webhook, docs/approvals.md#notify); null: nobody. Outlives the engine.
  ApprovalNotifier* approval_notifier = nullptr;
  // LLM governance (--llm-limits; docs/llm-governance.md): model limits,
  // prices and tenant budgets. Empty: calls are granted at once and billed.
  governance::LlmLimits llm_limits;
  // Schedules (docs/schedules.md): what turns a fire into a run (the
  // server's flow intake; null: schedules cannot be created), their metrics
  // (null: none) and how many one tenant may have
  // (--schedules-max-per-tenant). Both outlive the engine.
  ScheduleRunSource* schedule_runs = nullptr;
  ScheduleMetrics* schedule_metrics = nullptr;
  int64_t schedules_max_per_tenant = 1'000;
  // Event triggers (docs/schedules.md#event-triggers): what turns a
  // delivery into a run (null: triggers cannot be created), their metrics
  // (null: none) and their bounds (--triggers-*). Both outlive the engine.
  TriggerRunSource* trigger_runs = nullptr;
  TriggerMetrics* trigger_metrics = nullptr;
  int64_t triggers_max_per_tenant = 1'000;
  int64_t triggers_max_runs_per_event = 10;
  double triggers_tenant_per_minute = 600;
  int64_t triggers_tenant_burst = 60;
  // What a root run's storage may hold (--run-state-max-*;
  // docs/mcp.md#flowstate).
  RunStorageLimits run_storage_limits;
  // Threads that read the active runs back from the store at start
  // (run_loader.h), next to the one that takes them over: reading and
  // parsing is most of a restart's work.
  int recovery_threads = 2;
  // A replicated scheduler's leader: a batch's effects (replies,
  // assignments, watch events) wait until the gate releases the batch
  // (docs/high-availability.md#acknowledged-writes). Null: a single
  // scheduler, effects run once the batch is on the local disk. Outlives
  // the engine.
  ReplicationGate* replication_gate = nullptr;
  // Written batches whose effects may wait for the gate before the loop
  // blocks (commit_pipeline.h).
  size_t max_unacked_batches = CommitPipeline::kDefaultMaxUnacked;
  // With a gate: told how long each written batch waited for its release
  // (the replica's ack-latency metric). Null: not measured.
  CommitPipeline::OnReleased replication_released;
  // The process's tracer (--otlp-endpoint; docs/observability.md#scheduler-spans);
  // null or not enabled: runs get no trace context and make no spans.
  // Outlives the engine.
  const otel::Tracer* tracer = nullptr;
};

// Counters for benchmarks and metrics; read with Engine::stats().
struct EngineStats {
  int64_t batches = 0;
  int64_t events = 0;
  int64_t dispatched = 0;
  int64_t results = 0;
  int64_t commit_bytes = 0;
  int64_t ready_depth = 0;
  int64_t workers = 0;
};

class Engine : private EventPoster {
 public:
  // Loads every run that is not finished from the store and re-arms its
  // tasks: ready tasks are queued, retrying ones wait out their backoff, and
  // dispatched ones get a lease that expires unless their worker reconnects
  // holding them. INVALID_ARGUMENT without a store; a store read error as is.
  static absl::StatusOr<std::unique_ptr<Engine>> Create(EngineOptions options);
  ~Engine();

  // Starts / stops the loop thread. Stop drains what was posted before it;
  // with a replication gate it waits up to kStopReleaseWait for the
  // followers' acks and drops what they did not acknowledge.
  void Start();
  void Stop();
  static constexpr absl::Duration kStopReleaseWait = absl::Seconds(5);
  // After a write to the store outside the loop (a saved flow, from an RPC
  // thread): returns once the replication gate released it, OK at once
  // without a gate. UNAVAILABLE at `deadline`: the followers did not
  // acknowledge it in time (or this replica no longer leads), so it may be
  // lost in a failover.
  absl::Status AwaitReplicated(absl::Time deadline);
  // Without waiting: reads from other threads (store()) show every write
  // the followers hold by now. Before reading a saved flow, so that one
  // whose SaveFlow timed out is served once the followers caught up, even
  // if the engine wrote nothing since. Nothing to do without a gate.
  void RefreshReads();
  // A leader that stops leading: drops every effect the replication gate
  // has not released, and those of every later batch, so nothing more is
  // acknowledged to anyone. Returns how many it dropped now. Any thread.
  size_t AbandonUnreleased();

  // Creates a run. Calls `done` with its id once it is durable.
  // UNIMPLEMENTED for flow kinds this version cannot run; FAILED_PRECONDITION
  // when the flow leaves an agent out and no connected worker offers the
  // default agent.
  void Submit(SubmitRequest request, std::function<void(absl::StatusOr<SubmitResult>)> done);
  // Cancels a run: NOT_FOUND for an unknown run; a finished run reports its
  // status unchanged.
  void Cancel(std::string run_id, std::string reason,
              std::function<void(absl::StatusOr<v1::RunStatus>)> done);
  // Re-runs a failed / blocked / cancelled / paused run under the same id.
  // NOT_FOUND, or FAILED_PRECONDITION for a run that is not resumable.
  void Resume(std::string run_id, std::function<void(absl::StatusOr<ResumeResult>)> done);
  // With a new budget: FAILED_PRECONDITION when it is not more than the run
  // billed already (it would pause again at once).
  void Resume(std::string run_id, ResumeBudget budget,
              std::function<void(absl::StatusOr<ResumeResult>)> done);
  // New LLM limits (SIGHUP): in force for the next grant.
  void SetLlmLimits(governance::LlmLimits limits);
  // GetUsage: what tenants billed per model and day, from `since_day`
  // (YYYY-MM-DD); `tenant` "" for every tenant. Reads the store.
  absl::StatusOr<std::vector<v1::UsageRow>> ReadUsage(const std::string& tenant,
                                                      const std::string& since_day);
  // GetUsage's budgets: the tenant budgets of the LLM limits in force, each
  // with what the tenant billed in its current period by the engine's
  // clock; `tenant` nullopt for every tenant. Reads the store as ReadUsage.
  absl::StatusOr<std::vector<v1::TenantBudget>> ReadTenantBudgets(
      const std::optional<std::string>& tenant);

  // Worker streams. A stream id comes from NewStreamId; the stream's first
  // message is its Hello, which registers `channel` for replies.
  uint64_t NewStreamId();
  // `identity`: who the stream authenticated as (the worker token's name;
  // "" without authentication). Leases are re-attached only to a Hello with
  // the worker id and identity they were given to.
  void WorkerHello(uint64_t stream_id, v1::Hello hello,
                   std::shared_ptr<dispatch::WorkerChannel> channel, std::string identity = "");
  void WorkerMessage(uint64_t stream_id, v1::ConnectRequest message);
  void WorkerDisconnected(uint64_t stream_id);

  // Approvals (approvals/approvals.h, approval_task.h). ListApprovals answers
  // with the approval tasks waiting in the active runs of `tenant` (nullopt:
  // every tenant), the oldest first. DecideApproval decides the approval
  // phase `step_id` of `run_id` as `who` (the caller already may see the
  // run): INVALID_ARGUMENT for an answer over the approval limits
  // (approval_limits.h), NOT_FOUND for an unknown run or step, and the errors
  // of approval_task.h's CheckApprover and Decide; answers with the task.
  void ListApprovals(std::optional<std::string> tenant,
                     std::function<void(std::vector<v1::PendingApproval>)> done);
  void DecideApproval(std::string run_id, std::string step_id, ApprovalAnswer answer, Approver who,
                      std::function<void(absl::StatusOr<v1::Task>)> done);

  // The shared tool cache per tenant, scope kind and tool
  // (tool_calls/tool_calls.h, cache/cache_stats.h): the rows of `tenant`
  // (nullopt: every tenant) by tenant, scope and tool, their total entries
  // and the per-tenant entry limit. Never fails.
  void GetCacheStats(std::optional<std::string> tenant,
                     std::function<void(v1::GetCacheStatsResponse)> done);

  // Operators (workers/worker_streams.h). ListWorkers answers with the
  // connected workers sorted by id. DrainWorker sends Drain{grace_ms} to
  // every stream of `worker_id` and stops assigning to it; the worker hands
  // back or finishes its tasks and disconnects. NOT_FOUND (listing the
  // connected worker ids) when no stream has that id.
  void ListWorkers(std::function<void(std::vector<v1::WorkerInfo>)> done);
  void DrainWorker(std::string worker_id, int64_t grace_ms, std::string reason,
                   std::function<void(absl::StatusOr<v1::WorkerInfo>)> done);

  // Commits `writes` with the loop's next batch, so records kept beside the
  // runs (the audit trail, docs/audit.md) have the one writer every other
  // write has and, under replication, its log position. `written` runs on
  // the commit thread once they are; never, if the engine stops first.
  void CommitWrites(store::WriteBatch writes, std::function<void()> written);

  // A task's run storage (run_storage/run_state_calls.h): `identity` is
  // who the worker's call authenticated as. `done` runs on the commit thread
  // once the batch holding the call's write is written (errors too, in
  // order). Errors as CallRunState.
  void RunStateCall(std::string identity, v1::RunStateRequest request,
                    std::function<void(absl::StatusOr<v1::RunStateResponse>)> done);

  // Before a shutdown: ends every worker stream and watch as unavailable,
  // saying `reason`, so workers and watchers reconnect to the next
  // scheduler at once instead of holding the server's shutdown up.
  void CloseStreams(std::string reason);

  // Schedules (schedules/schedules.h) or Triggers (triggers/triggers.h), as
  // `Component`: runs `work` on the loop and calls `done` with its answer on
  // the commit thread once the batch holding its writes (and the runs it
  // started) is written. One template for both: each is a tenant's files
  // changed on the loop and answered after the commit (docs/schedules.md#api).
  template <typename Component, typename Answer>
  void OnComponent(std::function<Answer(Component&)> work, std::function<void(Answer)> done) {
    Post([this, work = std::move(work), done = std::move(done)]() mutable {
      batch_.AfterCommit([done = std::move(done), answer = work(component<Component>())]() mutable {
        done(std::move(answer));
      });
    });
  }

  WatchHub& watch_hub() { return runs_.watch_hub(); }
  // The store for reads from other threads (RPC handlers): they see a batch
  // once it is written, or on a replicated leader once it is acknowledged
  // (acked_store.h).
  store::Store& store() { return acked_ != nullptr ? *acked_ : *store_; }
  // Runs `then` once the tasks `run_id` starts with are written, if
  // SubmitRun accepted it and they are still being created (decision 121),
  // so a client that reads the run after SubmitRun's reply sees them; at
  // once, on the calling thread, for every other run. RPC handlers read a
  // run's tasks from store() in `then`. It may run on the commit thread, so
  // it only hands work on (to the read pool); it never blocks a thread while
  // it waits, and it always runs, at the latest when the engine stops.
  void WhenTasksCreated(const std::string& run_id, std::function<void()> then);
  const EngineOptions& options() const { return options_; }
  EngineStats stats() const;

  // Processes what is queued and what timers are due, on the calling
  // thread. For tests that drive the engine without Start().
  void RunOnce();

 private:
  // The loop: one thread takes the posted events in batches and runs them
  // with the components below; ProcessBatch says in which order a batch
  // does what, and ends with the group commit.
  explicit Engine(EngineOptions options);
  // EventPoster: what the RPC threads and the PolicyService's answers post.
  void Post(std::function<void()> event) override;
  void Loop();
  void ProcessBatch(std::vector<std::function<void()>>& batch);
  // The component OnComponent runs `work` with.
  template <typename Component>
  Component& component() {
    if constexpr (std::is_same_v<Component, Schedules>) {
      return schedules_;
    } else {
      static_assert(std::is_same_v<Component, Triggers>, "OnComponent serves Schedules, Triggers");
      return triggers_;
    }
  }
  // A worker's message to its owner (the msg_case switch); a batch in
  // order, as if sent one by one.
  void RouteWorkerMessage(uint64_t stream_id, v1::ConnectRequest& message);
  // Hands each due timer to its owner: the workers' (retry, task timeout,
  // scheduling), the approvals' or the runs' (run deadlines).
  void FireTimers();
  // Queues the READY tasks among `task_ids` (all of the run's when null)
  // and arms the deadlines of those waiting for a person; QueueTouched does
  // it for each touched run's changed tasks, in one pass.
  void QueueReadyTasks(RunState& run, const RunState::TaskIds* task_ids);
  void QueueTouched();
  // The touched runs' records and events (runs/run_commit.h), then the
  // batch goes to the commit pipeline.
  void Commit();
  // The runs, then what the other components keep across a restart.
  absl::Status Recover();
  // Refreshes the metrics' gauges from the components after a batch.
  void UpdateGauges();

  // The store given in the options; options_.store is loop_store_, which
  // makes the loop's reads wait for its writes still in the pipeline.
  store::Store* const store_;
  // With a replication gate only: what store() reads. Before pipeline_,
  // which publishes to it.
  const std::unique_ptr<AckedStore> acked_;
  CommitPipeline pipeline_;
  PipelinedStore loop_store_;
  EngineOptions options_;
  SystemClock system_clock_;

  mutable absl::Mutex mu_;
  absl::CondVar wake_;
  std::vector<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  // When each queued event was posted (clock ms), in queue_ order.
  std::vector<int64_t> queued_ms_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  EngineStats stats_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
  std::atomic<uint64_t> next_stream_id_{1};

  // Loop-thread state.
  LoopBatch batch_;
  TimerQueue timers_;
  // When the oldest event still queued after this batch was posted (none:
  // INT64_MAX). A lease expires only once every event posted before its
  // expiry was processed: after a stall (a slow store write) a backlog may
  // hold the heartbeat that keeps it.
  int64_t backlog_since_ms_ = INT64_MAX;
  EngineStats loop_stats_;
  // The components, each a single owner on the loop thread. The runs come
  // before the workers, which read the active runs; the runs' revoker and
  // listener are not used before the first batch.
  RunManager runs_;
  WorkerManager workers_;  // started in the constructor
  ToolCalls tool_calls_;
  LlmGrants llm_;
  Approvals approvals_;
  Schedules schedules_;
  Triggers triggers_;
  RunStorage run_storage_;
  // Its OnCommitted runs on the commit thread, as effects of the batches.
  RunTraces traces_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_ENGINE_H_
