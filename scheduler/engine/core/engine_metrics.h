#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_ENGINE_METRICS_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_ENGINE_METRICS_H_

// The engine's Prometheus metrics (docs/metrics.md): owns its metric families
// in a Registry the caller supplies and offers one typed hook per engine
// event. The engine takes an `EngineMetrics*` in EngineOptions; null means no
// metrics (what the engine unit tests use unless they read metrics back).
//
// Threading: every hook is called from the engine's loop thread only, so the
// per-agent series maps need no lock, except StoreCommitted, which the commit
// thread calls and which touches only its own atomics; the HTTP server reads the series
// themselves, which are atomics. Gauges are refreshed once per batch
// (UpdateQueues, UpdateWorkers, UpdateCache). Label values are agent names,
// flow kinds, run statuses and cache outcomes: bounded sets.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/gauge.h"
#include "common/metrics/histogram.h"
#include "common/metrics/registry.h"
#include "scheduler/cache/cache_service.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::engine {

// How one attempt of a task ended (label of the task counters).
enum class TaskEnd { kCompleted, kFailed, kRetried };

class EngineMetrics {
 public:
  // Registers the scheduler's engine families in `registry`, which must
  // outlive this object. Registering twice in one registry aborts.
  explicit EngineMetrics(metrics::Registry& registry);
  ~EngineMetrics();
  EngineMetrics(const EngineMetrics&) = delete;
  EngineMetrics& operator=(const EngineMetrics&) = delete;

  // Labels: kind = board|taskflow|plan_and_execute|supervisor, status =
  // succeeded|failed|cancelled|... (the enum names, lower case, unprefixed).
  void RunSubmitted(v1::FlowKind kind);
  void RunFinished(v1::FlowKind kind, v1::RunStatus status);
  // A run that could not be recovered on start and was failed on its own
  // ("unrecoverable: ...") so the others could go on.
  void RunQuarantined();
  // Runs deleted by --retention (a root run and its child runs count each).
  void RunsDeleted(int64_t count);

  // A task of `agent` was assigned after waiting `waited` in the ready queue.
  void TaskDispatched(absl::string_view agent, absl::Duration waited);
  // An attempt of a task of `agent` ended `ran` after its dispatch.
  void TaskEnded(absl::string_view agent, TaskEnd end, absl::Duration ran);
  // The lease of a task of `agent` was lost (worker gone or silent); the task
  // goes back to the ready queue unless its infra attempts are spent.
  void TaskLeaseLost(absl::string_view agent);

  // Prior work chosen for one assignment: observations and estimated tokens.
  void PriorWorkSelected(int observations, int64_t tokens);
  void LedgerAppended();
  void StoreCommitted(int64_t bytes, absl::Duration latency);

  // Once per batch. `depth_by_agent` holds the agents with queued work;
  // agents seen before and missing now are set to 0.
  void UpdateQueues(const std::vector<std::pair<std::string, int64_t>>& depth_by_agent,
                    absl::Duration oldest_ready_age);
  void UpdateWorkers(int64_t connected, int64_t free_slots);
  // From the cache's cumulative counters: counters advance by the difference
  // since the previous call.
  void UpdateCache(const cache::ToolCacheCounters& counters);
  // The ledger cache's cumulative hits and misses (counters advance by the
  // difference) and the bytes it holds now.
  void UpdateLedgerCache(int64_t hits, int64_t misses, int64_t bytes);

 private:
  struct AgentSeries;
  AgentSeries& Agent(absl::string_view agent);

  metrics::Family<metrics::Counter>& runs_submitted_;
  metrics::Family<metrics::Counter>& runs_finished_;
  metrics::Family<metrics::Counter>& runs_quarantined_;
  metrics::Family<metrics::Counter>& runs_deleted_;
  metrics::Family<metrics::Counter>& tasks_dispatched_;
  metrics::Family<metrics::Counter>& tasks_completed_;
  metrics::Family<metrics::Counter>& tasks_failed_;
  metrics::Family<metrics::Counter>& tasks_retried_;
  metrics::Family<metrics::Counter>& tasks_redispatched_;
  metrics::Family<metrics::Gauge>& ready_depth_;
  metrics::Family<metrics::Histogram>& dispatch_latency_;
  metrics::Family<metrics::Histogram>& task_duration_;
  metrics::Gauge& oldest_ready_age_;
  metrics::Gauge& workers_;
  metrics::Gauge& free_slots_;
  metrics::Family<metrics::Counter>& cache_lookups_;
  metrics::Counter& cache_hits_;
  metrics::Counter& cache_misses_;
  metrics::Counter& cache_coalesced_;
  metrics::Counter& cache_not_cacheable_;
  metrics::Gauge& cache_entries_;
  metrics::Counter& cache_evictions_;
  metrics::Counter& ledger_appends_;
  metrics::Family<metrics::Counter>& ledger_cache_lookups_;
  metrics::Counter& ledger_cache_hits_;
  metrics::Counter& ledger_cache_misses_;
  metrics::Gauge& ledger_cache_bytes_;
  metrics::Histogram& prior_work_observations_;
  metrics::Histogram& prior_work_tokens_;
  metrics::Histogram& commit_latency_;
  metrics::Counter& commit_bytes_;

  cache::ToolCacheCounters last_cache_;
  int64_t last_ledger_cache_hits_ = 0;
  int64_t last_ledger_cache_misses_ = 0;
  absl::flat_hash_map<std::string, std::unique_ptr<AgentSeries>> agents_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_ENGINE_METRICS_H_
