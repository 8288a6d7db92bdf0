#include "worker/session/worker_metrics.h"

#include <array>

#include "common/metrics/builder.h"

namespace taskboard::worker {
namespace {

using metrics::BuildCounter;
using metrics::BuildGauge;
using metrics::BuildHistogram;
using metrics::Counter;
using metrics::Histogram;

constexpr std::array<TaskOutcome, 4> kTaskOutcomes = {
    TaskOutcome::kSucceeded, TaskOutcome::kFailed, TaskOutcome::kCancelled, TaskOutcome::kReturned};

constexpr std::array<GrantWaitOutcome, 4> kGrantWaitOutcomes = {
    GrantWaitOutcome::kGranted, GrantWaitOutcome::kRefused, GrantWaitOutcome::kUnreachable,
    GrantWaitOutcome::kAbandoned};

// A grant comes at once while the model has room, and after a 429's pause
// or a full minute's limit otherwise: 1 ms, times 4, up to about 4 minutes.
metrics::BucketBoundaries GrantWaitBuckets() { return metrics::ExponentialBuckets(0.001, 4, 10); }

// Tasks run from milliseconds (noop, cached tools) to an hour (LLM loops,
// builds): 10 ms doubling up to about 87 minutes.
metrics::BucketBoundaries TaskDurationBuckets() { return metrics::ExponentialBuckets(0.01, 2, 20); }

}  // namespace

const char* TaskOutcomeName(TaskOutcome outcome) {
  switch (outcome) {
    case TaskOutcome::kSucceeded:
      return "succeeded";
    case TaskOutcome::kFailed:
      return "failed";
    case TaskOutcome::kCancelled:
      return "cancelled";
    case TaskOutcome::kReturned:
      return "returned";
  }
  return "failed";
}

const char* GrantWaitOutcomeName(GrantWaitOutcome outcome) {
  switch (outcome) {
    case GrantWaitOutcome::kGranted:
      return "granted";
    case GrantWaitOutcome::kRefused:
      return "refused";
    case GrantWaitOutcome::kUnreachable:
      return "unreachable";
    case GrantWaitOutcome::kAbandoned:
      return "abandoned";
  }
  return "abandoned";
}

struct WorkerMetrics::AgentSeries {
  // Indexed by TaskOutcome.
  std::array<Counter*, kTaskOutcomes.size()> tasks{};
  Histogram* duration = nullptr;
  Counter* prompt_tokens = nullptr;
  Counter* completion_tokens = nullptr;
  Counter* cost_usd = nullptr;
};

struct WorkerMetrics::ToolSeries {
  // Indexed by [cached][ok].
  std::array<std::array<Counter*, 2>, 2> calls{};
  Histogram* duration = nullptr;
};

WorkerMetrics::WorkerMetrics(metrics::Registry& registry)
    : tasks_(BuildCounter()
                 .Name("taskboard_worker_tasks_total")
                 .Help("Tasks that left a slot of this worker, by agent and outcome.")
                 .Register(registry)),
      task_duration_(BuildHistogram()
                         .Name("taskboard_worker_task_duration_seconds")
                         .Help("Time tasks held a slot of this worker, by agent.")
                         .Register(registry)),
      tokens_(BuildCounter()
                  .Name("taskboard_worker_llm_tokens_total")
                  .Help("LLM tokens used by this worker's tasks, by agent and kind.")
                  .Register(registry)),
      cost_(BuildCounter()
                .Name("taskboard_worker_llm_cost_usd_total")
                .Help("LLM cost in US dollars of this worker's tasks, by agent.")
                .Register(registry)),
      tool_calls_(BuildCounter()
                      .Name("taskboard_worker_tool_calls_total")
                      .Help("Tool calls made by this worker's tasks, by tool, cached and outcome.")
                      .Register(registry)),
      tool_duration_(BuildHistogram()
                         .Name("taskboard_worker_tool_duration_seconds")
                         .Help("Time tools executed on this worker (cached calls excluded), by "
                               "tool.")
                         .Register(registry)),
      grant_wait_(BuildHistogram()
                      .Name("taskboard_worker_llm_grant_wait_seconds")
                      .Help("Time model calls waited for the scheduler's grant, by how the wait "
                            "ended.")
                      .Register(registry)),
      slots_(BuildGauge()
                 .Name("taskboard_worker_slots")
                 .Help("Task slots of this worker, by state (busy or free).")
                 .Register(registry)),
      busy_slots_(slots_.Add({{"state", "busy"}})),
      free_slots_(slots_.Add({{"state", "free"}})),
      reconnects_(BuildCounter()
                      .Name("taskboard_worker_reconnects_total")
                      .Help("Times the stream to the scheduler ended or failed to open and the "
                            "worker retried.")
                      .Register(registry)
                      .Add({})),
      connected_(BuildGauge()
                     .Name("taskboard_worker_connected")
                     .Help("1 while the worker is connected to the scheduler, else 0.")
                     .Register(registry)
                     .Add({})) {
  // A fixed label set: every series exists (at 0) from the start.
  for (GrantWaitOutcome outcome : kGrantWaitOutcomes) {
    grant_waits_[static_cast<size_t>(outcome)] =
        &grant_wait_.Add({{"outcome", GrantWaitOutcomeName(outcome)}}, GrantWaitBuckets());
  }
}

WorkerMetrics::~WorkerMetrics() = default;  // here, where the series are complete

void WorkerMetrics::SetSlots(int busy, int free) {
  busy_slots_.Set(busy);
  free_slots_.Set(free);
}

void WorkerMetrics::TaskFinished(absl::string_view agent, TaskOutcome outcome,
                                 absl::Duration duration) {
  AgentSeries& series = Agent(agent);
  series.tasks[static_cast<size_t>(outcome)]->Increment();
  series.duration->Observe(absl::ToDoubleSeconds(duration));
}

void WorkerMetrics::LlmUsage(absl::string_view agent, int64_t prompt_tokens,
                             int64_t completion_tokens, double cost_usd) {
  if (prompt_tokens <= 0 && completion_tokens <= 0 && !(cost_usd > 0)) return;
  AgentSeries& series = Agent(agent);
  series.prompt_tokens->Increment(static_cast<double>(prompt_tokens));
  series.completion_tokens->Increment(static_cast<double>(completion_tokens));
  series.cost_usd->Increment(cost_usd);
}

void WorkerMetrics::ToolCallFinished(absl::string_view tool, bool cached, bool ok,
                                     std::optional<absl::Duration> execution) {
  ToolSeries& series = Tool(tool);
  series.calls[cached ? 1 : 0][ok ? 1 : 0]->Increment();
  if (execution.has_value()) series.duration->Observe(absl::ToDoubleSeconds(*execution));
}

void WorkerMetrics::LlmGrantWaited(GrantWaitOutcome outcome, absl::Duration wait) {
  grant_waits_[static_cast<size_t>(outcome)]->Observe(absl::ToDoubleSeconds(wait));
}

void WorkerMetrics::Reconnecting() { reconnects_.Increment(); }

void WorkerMetrics::SetConnected(bool connected) { connected_.Set(connected ? 1 : 0); }

WorkerMetrics::AgentSeries& WorkerMetrics::Agent(absl::string_view agent) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<AgentSeries>& series = agents_[agent];
  if (series != nullptr) return *series;
  series = std::make_unique<AgentSeries>();
  const std::string name(agent);
  for (TaskOutcome outcome : kTaskOutcomes) {
    series->tasks[static_cast<size_t>(outcome)] =
        &tasks_.Add({{"agent", name}, {"outcome", TaskOutcomeName(outcome)}});
  }
  series->duration = &task_duration_.Add({{"agent", name}}, TaskDurationBuckets());
  series->prompt_tokens = &tokens_.Add({{"agent", name}, {"kind", "prompt"}});
  series->completion_tokens = &tokens_.Add({{"agent", name}, {"kind", "completion"}});
  series->cost_usd = &cost_.Add({{"agent", name}});
  return *series;
}

WorkerMetrics::ToolSeries& WorkerMetrics::Tool(absl::string_view tool) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<ToolSeries>& series = tools_[tool];
  if (series != nullptr) return *series;
  series = std::make_unique<ToolSeries>();
  const std::string name(tool);
  for (int cached = 0; cached < 2; ++cached) {
    for (int ok = 0; ok < 2; ++ok) {
      series->calls[cached][ok] = &tool_calls_.Add({{"tool", name},
                                                    {"cached", cached ? "true" : "false"},
                                                    {"outcome", ok ? "ok" : "error"}});
    }
  }
  series->duration = &tool_duration_.Add({{"tool", name}});
  return *series;
}

}  // namespace taskboard::worker
