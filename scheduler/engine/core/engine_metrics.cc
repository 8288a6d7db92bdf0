#include "scheduler/engine/core/engine_metrics.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "common/metrics/builder.h"

namespace taskboard::engine {
namespace {

using metrics::BuildCounter;
using metrics::BuildGauge;
using metrics::BuildHistogram;
using metrics::Counter;
using metrics::Gauge;
using metrics::Histogram;

// Tasks run from milliseconds to an hour: 10 ms doubling up to about 87 min.
metrics::BucketBoundaries TaskDurationBuckets() { return metrics::ExponentialBuckets(0.01, 2, 20); }
// Queue waits are sub-millisecond when workers are free: 100 us doubling up
// to about 7 min.
metrics::BucketBoundaries DispatchLatencyBuckets() {
  return metrics::ExponentialBuckets(0.0001, 2, 22);
}

// "FLOW_KIND_BOARD" -> "board".
std::string EnumLabel(const std::string& name, absl::string_view prefix) {
  return absl::AsciiStrToLower(absl::string_view(name).substr(prefix.size()));
}

std::string KindLabel(v1::FlowKind kind) {
  return EnumLabel(v1::FlowKind_Name(kind), "FLOW_KIND_");
}

}  // namespace

struct EngineMetrics::AgentSeries {
  Counter* dispatched = nullptr;
  Counter* completed = nullptr;
  Counter* failed = nullptr;
  Counter* retried = nullptr;
  Counter* redispatched = nullptr;
  Gauge* ready_depth = nullptr;
  Histogram* dispatch_latency = nullptr;
  Histogram* task_duration = nullptr;
  bool queued = false;  // had a nonzero depth at the last UpdateQueues
};

EngineMetrics::EngineMetrics(metrics::Registry& registry)
    : runs_submitted_(BuildCounter()
                          .Name("taskboard_scheduler_runs_submitted_total")
                          .Help("Runs created, by flow kind.")
                          .Register(registry)),
      runs_finished_(BuildCounter()
                         .Name("taskboard_scheduler_runs_finished_total")
                         .Help("Runs that reached a final status, by flow kind and status.")
                         .Register(registry)),
      runs_quarantined_(
          BuildCounter()
              .Name("taskboard_scheduler_runs_quarantined_total")
              .Help("Runs failed at start-up because their records could not be recovered.")
              .Register(registry)),
      runs_deleted_(BuildCounter()
                        .Name("taskboard_scheduler_runs_deleted_total")
                        .Help("Finished runs deleted with all their records by --retention.")
                        .Register(registry)),
      tasks_dispatched_(BuildCounter()
                            .Name("taskboard_scheduler_tasks_dispatched_total")
                            .Help("Task assignments sent to workers, by agent.")
                            .Register(registry)),
      tasks_completed_(BuildCounter()
                           .Name("taskboard_scheduler_tasks_completed_total")
                           .Help("Task attempts that succeeded, by agent.")
                           .Register(registry)),
      tasks_failed_(BuildCounter()
                        .Name("taskboard_scheduler_tasks_failed_total")
                        .Help("Task attempts that failed with no retry left, by agent.")
                        .Register(registry)),
      tasks_retried_(BuildCounter()
                         .Name("taskboard_scheduler_tasks_retried_total")
                         .Help("Task attempts that failed and will be retried, by agent.")
                         .Register(registry)),
      tasks_redispatched_(BuildCounter()
                              .Name("taskboard_scheduler_tasks_lease_lost_total")
                              .Help("Tasks whose worker lost the lease (disconnected or silent); "
                                    "they are re-dispatched, by agent.")
                              .Register(registry)),
      ready_depth_(BuildGauge()
                       .Name("taskboard_scheduler_ready_queue_depth")
                       .Help("Tasks ready and waiting for a worker, by agent (the autoscaling "
                             "signal).")
                       .Register(registry)),
      dispatch_latency_(BuildHistogram()
                            .Name("taskboard_scheduler_dispatch_latency_seconds")
                            .Help("Time from a task becoming ready to its assignment, by agent.")
                            .Register(registry)),
      task_duration_(BuildHistogram()
                         .Name("taskboard_scheduler_task_duration_seconds")
                         .Help("Time from a task's dispatch to its attempt's end, by agent.")
                         .Register(registry)),
      oldest_ready_age_(BuildGauge()
                            .Name("taskboard_scheduler_oldest_ready_task_age_seconds")
                            .Help("Age of the oldest task waiting in a ready queue (0 when none).")
                            .Register(registry)
                            .Add({})),
      workers_(BuildGauge()
                   .Name("taskboard_scheduler_connected_workers")
                   .Help("Worker streams connected to this scheduler.")
                   .Register(registry)
                   .Add({})),
      free_slots_(BuildGauge()
                      .Name("taskboard_scheduler_free_slots")
                      .Help("Task slots the connected workers have free.")
                      .Register(registry)
                      .Add({})),
      cache_lookups_(BuildCounter()
                         .Name("taskboard_scheduler_tool_cache_lookups_total")
                         .Help("Tool-cache lookups, by outcome (hit, miss, coalesced, "
                               "not_cacheable).")
                         .Register(registry)),
      cache_hits_(cache_lookups_.Add({{"outcome", "hit"}})),
      cache_misses_(cache_lookups_.Add({{"outcome", "miss"}})),
      cache_coalesced_(cache_lookups_.Add({{"outcome", "coalesced"}})),
      cache_not_cacheable_(cache_lookups_.Add({{"outcome", "not_cacheable"}})),
      cache_entries_(BuildGauge()
                         .Name("taskboard_scheduler_tool_cache_entries")
                         .Help("Tool results held by the tool cache.")
                         .Register(registry)
                         .Add({})),
      cache_evictions_(BuildCounter()
                           .Name("taskboard_scheduler_tool_cache_evictions_total")
                           .Help("Tool-cache entries evicted to stay within the cache's size.")
                           .Register(registry)
                           .Add({})),
      ledger_appends_(BuildCounter()
                          .Name("taskboard_scheduler_ledger_appends_total")
                          .Help("Observations appended to request ledgers.")
                          .Register(registry)
                          .Add({})),
      ledger_cache_lookups_(BuildCounter()
                                .Name("taskboard_scheduler_ledger_cache_lookups_total")
                                .Help("Observation bodies read from request ledgers, by outcome "
                                      "(hit: from the ledger cache; miss: from the store).")
                                .Register(registry)),
      ledger_cache_hits_(ledger_cache_lookups_.Add({{"outcome", "hit"}})),
      ledger_cache_misses_(ledger_cache_lookups_.Add({{"outcome", "miss"}})),
      ledger_cache_bytes_(BuildGauge()
                              .Name("taskboard_scheduler_ledger_cache_bytes")
                              .Help("Bytes of observation bodies held by the ledger cache "
                                    "(--ledger-cache-mb bounds it).")
                              .Register(registry)
                              .Add({})),
      prior_work_observations_(
          BuildHistogram()
              .Name("taskboard_scheduler_prior_work_observations")
              .Help("Observations selected as prior work for one assignment.")
              .Register(registry)
              .Add({}, metrics::BucketBoundaries{0, 1, 2, 5, 10, 20, 50, 100, 200, 500})),
      prior_work_tokens_(BuildHistogram()
                             .Name("taskboard_scheduler_prior_work_tokens")
                             .Help("Estimated tokens of the prior work of one assignment.")
                             .Register(registry)
                             .Add({}, metrics::ExponentialBuckets(100, 2, 14))),
      commit_latency_(BuildHistogram()
                          .Name("taskboard_scheduler_store_commit_latency_seconds")
                          .Help("Time to write one batch of engine changes to the store.")
                          .Register(registry)
                          .Add({}, metrics::ExponentialBuckets(0.00005, 2, 18))),
      commit_bytes_(BuildCounter()
                        .Name("taskboard_scheduler_store_written_bytes_total")
                        .Help("Bytes of engine changes written to the store.")
                        .Register(registry)
                        .Add({})) {}

EngineMetrics::~EngineMetrics() = default;  // here, where AgentSeries is complete

void EngineMetrics::RunSubmitted(v1::FlowKind kind) {
  runs_submitted_.Add({{"kind", KindLabel(kind)}}).Increment();
}

void EngineMetrics::RunQuarantined() { runs_quarantined_.Add({}).Increment(); }

void EngineMetrics::RunsDeleted(int64_t count) {
  runs_deleted_.Add({}).Increment(static_cast<double>(count));
}

void EngineMetrics::RunFinished(v1::FlowKind kind, v1::RunStatus status) {
  runs_finished_
      .Add({{"kind", KindLabel(kind)},
            {"status", EnumLabel(v1::RunStatus_Name(status), "RUN_STATUS_")}})
      .Increment();
}

void EngineMetrics::TaskDispatched(absl::string_view agent, absl::Duration waited) {
  AgentSeries& series = Agent(agent);
  series.dispatched->Increment();
  series.dispatch_latency->Observe(absl::ToDoubleSeconds(waited));
}

void EngineMetrics::TaskEnded(absl::string_view agent, TaskEnd end, absl::Duration ran) {
  AgentSeries& series = Agent(agent);
  switch (end) {
    case TaskEnd::kCompleted:
      series.completed->Increment();
      break;
    case TaskEnd::kFailed:
      series.failed->Increment();
      break;
    case TaskEnd::kRetried:
      series.retried->Increment();
      break;
  }
  series.task_duration->Observe(absl::ToDoubleSeconds(ran));
}

void EngineMetrics::TaskLeaseLost(absl::string_view agent) {
  Agent(agent).redispatched->Increment();
}

void EngineMetrics::PriorWorkSelected(int observations, int64_t tokens) {
  prior_work_observations_.Observe(observations);
  prior_work_tokens_.Observe(static_cast<double>(tokens));
}

void EngineMetrics::LedgerAppended() { ledger_appends_.Increment(); }

void EngineMetrics::StoreCommitted(int64_t bytes, absl::Duration latency) {
  commit_bytes_.Increment(static_cast<double>(bytes));
  commit_latency_.Observe(absl::ToDoubleSeconds(latency));
}

void EngineMetrics::UpdateQueues(const std::vector<std::pair<std::string, int64_t>>& depth_by_agent,
                                 absl::Duration oldest_ready_age) {
  for (auto& [name, series] : agents_) {
    if (series->queued) series->ready_depth->Set(0);
    series->queued = false;
  }
  for (const auto& [agent, depth] : depth_by_agent) {
    AgentSeries& series = Agent(agent);
    series.ready_depth->Set(static_cast<double>(depth));
    series.queued = depth > 0;
  }
  oldest_ready_age_.Set(absl::ToDoubleSeconds(oldest_ready_age));
}

void EngineMetrics::UpdateWorkers(int64_t connected, int64_t free_slots) {
  workers_.Set(static_cast<double>(connected));
  free_slots_.Set(static_cast<double>(free_slots));
}

void EngineMetrics::UpdateCache(const cache::ToolCacheCounters& counters) {
  auto advance = [](Counter& counter, int64_t now, int64_t before) {
    if (now > before) counter.Increment(static_cast<double>(now - before));
  };
  advance(cache_hits_, counters.hits, last_cache_.hits);
  advance(cache_misses_, counters.misses, last_cache_.misses);
  advance(cache_coalesced_, counters.coalesced, last_cache_.coalesced);
  advance(cache_not_cacheable_, counters.not_cacheable, last_cache_.not_cacheable);
  advance(cache_evictions_, counters.evictions, last_cache_.evictions);
  cache_entries_.Set(static_cast<double>(counters.entries));
  last_cache_ = counters;
}

void EngineMetrics::UpdateLedgerCache(int64_t hits, int64_t misses, int64_t bytes) {
  if (hits > last_ledger_cache_hits_) {
    ledger_cache_hits_.Increment(static_cast<double>(hits - last_ledger_cache_hits_));
  }
  if (misses > last_ledger_cache_misses_) {
    ledger_cache_misses_.Increment(static_cast<double>(misses - last_ledger_cache_misses_));
  }
  ledger_cache_bytes_.Set(static_cast<double>(bytes));
  last_ledger_cache_hits_ = hits;
  last_ledger_cache_misses_ = misses;
}

EngineMetrics::AgentSeries& EngineMetrics::Agent(absl::string_view agent) {
  std::unique_ptr<AgentSeries>& series = agents_[agent];
  if (series != nullptr) return *series;
  series = std::make_unique<AgentSeries>();
  const metrics::Labels labels = {{"agent", std::string(agent)}};
  series->dispatched = &tasks_dispatched_.Add(labels);
  series->completed = &tasks_completed_.Add(labels);
  series->failed = &tasks_failed_.Add(labels);
  series->retried = &tasks_retried_.Add(labels);
  series->redispatched = &tasks_redispatched_.Add(labels);
  series->ready_depth = &ready_depth_.Add(labels);
  series->dispatch_latency = &dispatch_latency_.Add(labels, DispatchLatencyBuckets());
  series->task_duration = &task_duration_.Add(labels, TaskDurationBuckets());
  return *series;
}

}  // namespace taskboard::engine
