#ifndef TASKBOARD_SCHEDULER_GOVERNANCE_LLM_GOVERNOR_H_
#define TASKBOARD_SCHEDULER_GOVERNANCE_LLM_GOVERNOR_H_

// Grants model calls for the whole cluster (docs/llm-governance.md). Every
// worker asks before each call; the governor answers at once when the
// model's limits (and the tenant's share of them) have room, and otherwise
// queues the ask until they do:
//
//   Ask ----> room? ----yes----> Granted (tokens reserved, one in flight)
//               | no
//               v
//   waiting, by run priority, then the least recently served tenant, then
//   its least recently served run, then first come
//               |
//   Tick(now) grants what the refilled buckets and freed slots allow
//
//   Report: the call's real tokens replace the reservation; a 429 pauses the
//   model for its Retry-After, then runs it at half its rate (an eighth at
//   most) for a minute, so every worker backs off together instead of each
//   retrying into the same window.
//
// The buckets let half a second of the limit through at once where the
// provider allows a second (common/rate_bucket.h): a call that reaches the
// provider a little after its grant, or out of order, still fits there.
//
// Loop-thread only (the engine owns it); time is passed in.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "common/rate_bucket.h"
#include "scheduler/governance/llm_limits.h"

namespace taskboard::governance {

// One worker's request for one call.
struct GrantAsk {
  uint64_t stream_id = 0;  // where the answer goes
  std::string request_id;  // echoed to the worker
  std::string lease_id;    // the task's lease: released with it
  std::string model;
  // Input plus the most output: reserved against tokens per minute.
  int64_t tokens = 0;
  std::string tenant;
  std::string run_id;  // the unit of fairness within a tenant (the root run)
  int32_t priority = 0;
  // What the call may cost at most, and the budgets it counts against
  // ("run/<id>", "tenant/<name>"): held in Reserved() from the ask until
  // the call reports or is released, so calls in flight count against a
  // budget before they are billed.
  double usd = 0;
  std::vector<std::string> accounts;
};

struct Spend {
  int64_t tokens = 0;
  double usd = 0;
};

struct Granted {
  uint64_t stream_id = 0;
  std::string request_id;
  std::string grant_id;
  std::string model;
  absl::Duration waited;
};

// How one granted call ended (LlmCallReport).
struct CallOutcome {
  int http_status = 0;
  absl::Duration retry_after;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

// What the governor holds for one model, for metrics.
struct ModelState {
  std::string model;
  // Limits in force now (0: none); lower than configured after a 429.
  double rpm = 0;
  double tpm = 0;
  int concurrency = 0;
  int in_flight = 0;
  int waiting = 0;
};

class LlmGovernor {
 public:
  explicit LlmGovernor(LlmLimits limits = {});
  ~LlmGovernor();

  // A new configuration (SIGHUP). Calls in flight and waiting asks carry
  // over; a model's buckets start anew only when its limits changed.
  void SetLimits(LlmLimits limits, absl::Time now);
  const LlmLimits& limits() const { return limits_; }

  // Granted at once, or nullopt: the ask waits for Tick.
  std::optional<Granted> Ask(GrantAsk ask, absl::Time now);
  // The asks that can be granted by `now`, in grant order.
  std::vector<Granted> Tick(absl::Time now);
  // When Tick may grant next: InfiniteFuture when nothing waits, or what
  // waits needs a call in flight to end first.
  absl::Time NextWake() const { return next_wake_; }

  // The call of `grant_id` ended; unknown grants (released already) are
  // ignored. Frees its place and may let waiting asks through (Tick).
  void Report(const std::string& grant_id, const CallOutcome& outcome, absl::Time now);
  // The lease ended (result, loss, cancel): its waiting asks are dropped and
  // its unreported grants released, their tokens kept charged (the call may
  // well have reached the provider).
  void ReleaseLease(const std::string& lease_id, absl::Time now);
  // The stream ended: its waiting asks are dropped (the worker asks again
  // on its next stream) and its unreported grants released.
  void ReleaseStream(uint64_t stream_id, absl::Time now);

  // Whether calls to `model` may be tracked: a model already tracked or
  // configured, or a new one while fewer than `max_models` are (it is then
  // tracked). Bounds what workers naming models can make the scheduler hold.
  bool Admit(const std::string& model, size_t max_models);

  // Asks waiting plus calls granted under `lease_id`.
  size_t LeaseCalls(const std::string& lease_id) const;
  // Ends slow windows that have passed, for the metrics' sake (Tick does
  // it for models that have asks waiting).
  void Refresh(absl::Time now);

  // What the asks and calls in flight of `account` may still cost.
  Spend Reserved(const std::string& account) const;

  std::vector<ModelState> Models() const;
  bool has_models() const { return !models_.empty() || !limits_.models.empty(); }
  size_t waiting() const { return waiting_; }
  size_t in_flight() const { return grants_.size(); }

 private:
  struct Limiter;
  struct Waiting;
  struct GrantRecord {
    std::string model;
    std::string tenant;
    std::string lease_id;
    uint64_t stream_id = 0;
    int64_t tokens = 0;
    double usd = 0;
    std::vector<std::string> accounts;
    absl::Time granted_at;
  };
  void Reserve(const GrantAsk& ask, int sign);
  void CountLeaseCall(const std::string& lease_id, int delta);
  // Drops the waiting asks and frees the grants that `matches` (on their
  // lease and stream ids).
  void Release(const std::function<bool(const GrantAsk&)>& matches, absl::Time now);
  static std::string ShareKey(const std::string& tenant, const std::string& model);

  Limiter& ModelLimiter(const std::string& model);
  Limiter* TenantLimiter(const std::string& tenant, const std::string& model);
  // Zero when a call of `tokens` may start now; else how long until it may
  // (InfiniteDuration: a call in flight must end first).
  absl::Duration WaitFor(const GrantAsk& ask, absl::Time now);
  Granted Grant(GrantAsk ask, absl::Time asked_at, absl::Time now);
  // Frees a grant's place; with `outcome`, reconciles its tokens and slows
  // the model down after a 429.
  void Free(const std::string& grant_id, const CallOutcome* outcome, absl::Time now);
  void Drop(const std::function<bool(const GrantAsk&)>& matches);

  LlmLimits limits_;
  absl::flat_hash_map<std::string, std::unique_ptr<Limiter>> models_;
  absl::flat_hash_map<std::string, std::unique_ptr<Limiter>> tenant_models_;  // tenant \0 model
  std::unique_ptr<Waiting> waiting_asks_;
  size_t waiting_ = 0;
  absl::flat_hash_map<std::string, GrantRecord> grants_;
  absl::flat_hash_map<std::string, Spend> reserved_;
  absl::flat_hash_map<std::string, size_t> lease_calls_;  // waiting + granted
  // Random per governor, so a report from before a restart frees nothing.
  std::string grant_prefix_;
  uint64_t next_grant_ = 1;
  absl::Time next_wake_ = absl::InfiniteFuture();
};

}  // namespace taskboard::governance

#endif  // TASKBOARD_SCHEDULER_GOVERNANCE_LLM_GOVERNOR_H_
