#ifndef TASKBOARD_WORKER_SESSION_WORKER_METRICS_H_
#define TASKBOARD_WORKER_SESSION_WORKER_METRICS_H_

// The worker's Prometheus metrics (docs/metrics.md, docs/services.md): owns
// its metric families in a Registry the caller supplies and offers one typed
// hook per event, called by the session (slots, tasks, LLM usage, the
// connection) and the tool caller (tool calls). Components take a
// `WorkerMetrics*`; null means no metrics, which is what unit tests of those
// components use.
//
// Labelled children are looked up once per agent / tool and kept in a small
// map under a mutex, so a hook costs a map lookup plus relaxed atomics, never
// Family::Add. An agent's or tool's series are all created on its first
// event (at 0), so rates work from the start. Label values are agent names the worker offers and
// tool names of its registry: bounded sets.
//
// Thread-safe: every hook may run on any thread. Its lock is a leaf (it calls
// nothing back), so hooks may run under the caller's own locks.

#include <array>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/gauge.h"
#include "common/metrics/histogram.h"
#include "common/metrics/registry.h"

namespace taskboard::worker {

// How a task left its slot (label `outcome` of taskboard_worker_tasks_total).
enum class TaskOutcome { kSucceeded, kFailed, kCancelled, kReturned };

// "succeeded", "failed", "cancelled" or "returned": the label value, also
// the `outcome` of the worker's "task finished" log line.
const char* TaskOutcomeName(TaskOutcome outcome);

// How a model call's wait for the scheduler's grant ended (label `outcome`
// of taskboard_worker_llm_grant_wait_seconds): granted, refused (a budget),
// unreachable (no stream for the reconnect wait: the call went ahead
// ungoverned), abandoned (the task was cancelled or ran out of time).
enum class GrantWaitOutcome { kGranted, kRefused, kUnreachable, kAbandoned };

const char* GrantWaitOutcomeName(GrantWaitOutcome outcome);

class WorkerMetrics {
 public:
  // Registers the worker's families in `registry`, which must outlive this
  // object. Registering twice in one registry is a programmer error (aborts).
  explicit WorkerMetrics(metrics::Registry& registry);
  ~WorkerMetrics();
  WorkerMetrics(const WorkerMetrics&) = delete;
  WorkerMetrics& operator=(const WorkerMetrics&) = delete;

  // taskboard_worker_slots{state="busy"|"free"}.
  void SetSlots(int busy, int free);

  // A task of `agent` finished after `duration` in its slot.
  void TaskFinished(absl::string_view agent, TaskOutcome outcome, absl::Duration duration);

  // Token and cost accounting reported by a task of `agent`.
  void LlmUsage(absl::string_view agent, int64_t prompt_tokens, int64_t completion_tokens,
                double cost_usd);

  // One observed call of `tool`: `cached` when the scheduler's cache answered
  // it; `execution` is how long the tool itself ran, unset when it did not
  // run (cached, or cancelled before execution).
  void ToolCallFinished(absl::string_view tool, bool cached, bool ok,
                        std::optional<absl::Duration> execution);

  // A model call waited `wait` for the scheduler's grant (calls of a
  // scheduler that does not govern do not wait, and are not counted).
  void LlmGrantWaited(GrantWaitOutcome outcome, absl::Duration wait);

  // The stream to the scheduler ended and the worker will connect again.
  void Reconnecting();
  // taskboard_worker_connected: 1 from Welcome until the stream ends.
  void SetConnected(bool connected);

 private:
  struct AgentSeries;
  struct ToolSeries;

  AgentSeries& Agent(absl::string_view agent);
  ToolSeries& Tool(absl::string_view tool);

  metrics::Family<metrics::Counter>& tasks_;
  metrics::Family<metrics::Histogram>& task_duration_;
  metrics::Family<metrics::Counter>& tokens_;
  metrics::Family<metrics::Counter>& cost_;
  metrics::Family<metrics::Counter>& tool_calls_;
  metrics::Family<metrics::Histogram>& tool_duration_;
  metrics::Family<metrics::Histogram>& grant_wait_;
  // Indexed by GrantWaitOutcome.
  std::array<metrics::Histogram*, 4> grant_waits_{};
  metrics::Family<metrics::Gauge>& slots_;
  metrics::Gauge& busy_slots_;
  metrics::Gauge& free_slots_;
  metrics::Counter& reconnects_;
  metrics::Gauge& connected_;

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<AgentSeries>> agents_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::unique_ptr<ToolSeries>> tools_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_WORKER_METRICS_H_
