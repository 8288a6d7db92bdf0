#ifndef TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_TOOL_CALLS_H_
#define TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_TOOL_CALLS_H_

// The tool calls of the tasks that run (docs/semantics.md#tool-cache): the
// shared tool cache that answers a worker's lookup before it calls a tool,
// the observation ledger (ledger_book.h) that records every call a worker
// reports, per request, and the prior work later tasks are sent with from
// it (prior_work.h, summaries.h).
//
// A lookup under a lease that is no longer current, or of a tool the task
// may not call (tool_permission.h), is answered NOT_CACHEABLE; a call that
// waits for the same call in flight elsewhere is answered when that call
// lands, or when its caller's lease ends or its worker goes (then the
// waiter runs it itself). A reported call is recorded once, under the
// task's current lease only: a refused one as an error, an oversized result
// as an error, and a report resent after a reconnect is dropped.
//
// Loop thread only: nothing here takes a lock.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/cache/cache_service.h"
#include "scheduler/dispatch/lease_table.h"
#include "scheduler/dispatch/worker_registry.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/event_poster.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/runs/run_deletion.h"
#include "scheduler/engine/runs/run_listener.h"
#include "scheduler/engine/tool_calls/ledger_book.h"
#include "scheduler/engine/tool_calls/policy_service_caller.h"
#include "scheduler/engine/tool_calls/prior_work.h"
#include "scheduler/engine/tool_calls/summaries.h"
#include "scheduler/engine/workers/worker_listener.h"
#include "scheduler/engine/workers/worker_manager.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/scheduler.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class ToolCalls : public WorkerListener, public RunListener {
 public:
  struct Options {
    store::Store* store = nullptr;  // the loop's view: ledgers and cache entries
    cache::CacheLimits cache_limits;
    // Bytes of observation bodies kept in memory (--ledger-cache-mb).
    int64_t ledger_cache_bytes = LedgerBook::kDefaultCacheBytes;
    // Larger tool results are recorded as errors (--max-tool-result-bytes).
    int64_t max_tool_result_bytes = 0;
    // A summarizer's prompt is bounded like any task text.
    int64_t max_interpolated_bytes = 2 << 20;
    int64_t lease_timeout_ms = 30'000;
    PolicyServiceCaller* policy_service = nullptr;  // may be null (prior_work.h)
    EngineMetrics* metrics = nullptr;               // may be null
    // How long identical calls wait for a call whose worker is out of touch
    // (--tool-call-hold-ms; cache::ToolCacheService::set_hold_ms).
    int64_t tool_call_hold_ms = 5'000;
  };
  // Everything outlives this. `poster` brings a PolicyService's answer back
  // to the loop.
  ToolCalls(Options options, LoopBatch* batch, ActiveRuns* runs, WorkerManager* workers,
            EventPoster* poster);
  ToolCalls(const ToolCalls&) = delete;
  ToolCalls& operator=(const ToolCalls&) = delete;

  // A worker asks whether to call a tool: answered on `from`'s stream with
  // the cache's decision, or later when the call it waits for lands. A
  // superseded lease or a tool the task may not call: NOT_CACHEABLE. A
  // cache warning becomes a run event, once per run.
  void OnLookup(const dispatch::ConnectedWorker& from, const v1::ToolLookup& lookup);
  // A worker reports a call: recorded in the request's ledger (and the
  // cache, whose waiters are answered). Refused calls and oversized results
  // are recorded as errors; a report already recorded (resent after a
  // reconnect) is dropped; an unreadable ledger leaves a warning instead.
  void OnObservation(const dispatch::ConnectedWorker& from, const v1::ToolObservation& reported);

  // GetCacheStats: the cache's rows of `tenant` (nullopt: every tenant),
  // their total entries and the per-tenant entry limit. Never fails.
  v1::GetCacheStatsResponse CacheStats(const std::optional<std::string>& tenant) const;
  // At start: the stored cache entries (cache::ToolCacheService::Load's
  // errors); expired ones are deleted by the first batch. With active runs
  // recovered, new calls are held a while for the workers' announcements.
  absl::Status LoadCache(bool runs_recovered);
  // Deletes the expired cache entries; with the lease sweep.
  void SweepCache();
  // Hands each held call whose hold ended to a waiter; every batch.
  void ReleaseHeldCalls();
  // When the next held call's hold ends (the loop wakes for it).
  std::optional<int64_t> NextHeldRelease() const { return cache_.NextRelease(); }

  // Answers the callers waiting on calls with the cache's decision: on the
  // newest stream of each caller's worker (none left: dropped; a worker
  // that reconnects asks again).
  void SendAnswers(std::vector<cache::Answer> answers);

  // WorkerListener: an assignment that waited for a PolicyService gives its
  // credit back, a summarizer's job finishes without it, and the calls the
  // lease had in flight pass to a waiter.
  void OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held) override;
  // WorkerListener: the worker's waits are dropped (it runs those calls
  // itself) and the calls it ran for others pass to a waiter.
  void OnWorkerGone(const std::string& worker_id) override;
  // RunListener: a finished run's request keeps its ledger in the store;
  // memory holds only what active runs select from (a resume reloads it).
  void OnRunLeftMemory(const std::string& run_id) override;
  // RunListener: the cache entries scoped to the deleted runs go (session
  // and global entries stay), and the request's ledger leaves memory.
  void OnRootRunDeleted(const RunDeletion& deletion) override;

  // The dispatcher's PriorWorkSource.
  PriorWorkService& prior_work() { return prior_work_; }
  LedgerBook& ledgers() { return ledgers_; }
  const LedgerBook& ledgers() const { return ledgers_; }
  const cache::ToolCacheService& cache() const { return cache_; }

 private:
  cache::CallContext CallContextFor(const ActiveRun& active,
                                    const dispatch::ConnectedWorker& worker,
                                    absl::string_view task_id, absl::string_view tool_name) const;
  // A warning event on `run` (touched).
  void Warn(RunState& run, std::string message);

  const Options options_;
  LoopBatch* const batch_;
  LeaseKeeper* const leases_;
  WorkerStreams* const streams_;
  LedgerBook ledgers_;
  cache::ToolCacheService cache_;
  Summaries summaries_;
  PriorWorkService prior_work_;
  // The cache warnings each active run has shown (each once), by run id.
  absl::flat_hash_map<std::string, std::set<std::string>> warned_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_TOOL_CALLS_H_
