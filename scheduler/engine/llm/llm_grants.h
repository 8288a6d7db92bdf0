#ifndef TASKBOARD_SCHEDULER_ENGINE_LLM_LLM_GRANTS_H_
#define TASKBOARD_SCHEDULER_ENGINE_LLM_LLM_GRANTS_H_

// LLM governance on the engine's loop (docs/llm-governance.md): grants for
// model calls under the --llm-limits, the budgets of runs and tenants, and
// the billing of every call a worker reports, to its run, every run above
// it and the tenant's usage rows.
//
// A call over the root run's budget (or its tenant's) is refused and stops
// the whole tree: the root ends paused (or, with `onBudget: fail`, only the
// call is refused) and its leases are revoked. A call reported for a run
// that ended meanwhile is billed in the run's stored record before the
// commit, so a resume counts it.
//
// Loop thread only, except ReadUsage and ReadTenantBudgets, which read the
// store and a copy of the budgets (budgets_mu_, the one lock here).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/dispatch/lease_table.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/llm/llm_metrics.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/runs/lease_revoker.h"
#include "scheduler/engine/runs/retention.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/trace_content_policy.h"
#include "scheduler/engine/workers/worker_listener.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "scheduler/governance/llm_governor.h"
#include "scheduler/governance/llm_limits.h"
#include "scheduler/governance/usage_book.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/scheduler.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class LlmGrants : public WorkerListener, public TraceContentPolicy {
 public:
  struct Options {
    // The loop's view of the store: ended runs' records, usage at start.
    store::Store* store = nullptr;
    // The store itself, for ReadUsage on RPC threads.
    store::Store* rpc_store = nullptr;
    governance::LlmLimits limits;
    LlmMetrics* metrics = nullptr;  // may be null
  };
  // Everything outlives this. `leases` says which run a lease covers;
  // `revoker` stops the leases of a tree paused on its budget.
  LlmGrants(Options options, LoopBatch* batch, ActiveRuns* runs, const Retention* retention,
            LeaseKeeper* leases, WorkerStreams* streams, LeaseRevoker* revoker);
  LlmGrants(const LlmGrants&) = delete;
  LlmGrants& operator=(const LlmGrants&) = delete;

  // New limits (SIGHUP): in force for the next grant.
  void SetLimits(governance::LlmLimits limits);

  // The limits' `tenants.NAME.traceContent` (true when not listed).
  bool TraceContentAllowed(const std::string& tenant) const override {
    return governance::TenantAllowsTraceContent(governor_.limits(), tenant);
  }

  // A worker asks to make a model call under its task's lease. Answered on
  // `stream_id` with an LlmGrant: granted now, later (GrantDue, once the
  // model's limits refill), or refused (the lease is not current, a
  // malformed model name, too many calls for the lease or too many models,
  // or a budget; see the class comment).
  void OnGrantRequest(uint64_t stream_id, const v1::LlmGrantRequest& request);
  // A worker reports a call: its grant is freed, and a call that happened is
  // billed and counted in the tenant's usage rows.
  void OnCallReport(const v1::LlmCallReport& report);
  // Sends what the governor can grant by now; after the batch's events.
  void GrantDue();
  // Bills the calls reported for runs that had ended to their stored
  // records (and those above them); before each commit.
  void BillEndedRuns();
  // The current month's usage rows, at start-up; the store's scan error.
  absl::Status LoadUsage();
  // When the loop must wake for calls waiting on their model's limits;
  // InfiniteFuture when none waits.
  absl::Time NextWake() const { return governor_.NextWake(); }

  // GetUsage: what tenants billed per model and day, from `since_day`
  // (YYYY-MM-DD); `tenant` "" for every tenant. Any thread: reads the store
  // itself, no loop state. The store's scan error.
  absl::StatusOr<std::vector<v1::UsageRow>> ReadUsage(const std::string& tenant,
                                                      const std::string& since_day) const;
  // GetUsage's budgets: the tenant budgets of the limits in force, each
  // with what the tenant billed in its period current at `now`
  // (governance/tenant_budget_report.h); only `tenant`'s when set. Any
  // thread: the usage rows come from the store as ReadUsage reads them, so
  // billed matches GetUsage's rows. The store's scan error.
  absl::StatusOr<std::vector<v1::TenantBudget>> ReadTenantBudgets(
      const std::optional<std::string>& tenant, absl::Time now) const;

  // WorkerListener: the lease's grants and waits are released.
  void OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held) override;
  // WorkerListener: its calls waiting for a grant are asked again on the
  // worker's next stream.
  void OnStreamClosed(uint64_t stream_id) override;

  const governance::LlmGovernor& governor() const { return governor_; }

 private:
  // Copies the tenants' budgets out of `limits` for ReadTenantBudgets.
  void PublishBudgets(const governance::LlmLimits& limits);
  void Refuse(uint64_t stream_id, const std::string& request_id, const std::string& error);
  void Send(const governance::Granted& granted);
  // A call would exceed a budget (`scope`: run or tenant): refuses it, and
  // pauses the root run unless its flow says `onBudget: fail`.
  void StopOnBudget(uint64_t stream_id, const v1::LlmGrantRequest& request, RunState& asking,
                    const std::string& scope, const std::string& reason);

  store::Store* const store_;
  store::Store* const rpc_store_;
  LlmMetrics* const metrics_;
  LoopBatch* const batch_;
  ActiveRuns* const runs_;
  const Retention* const retention_;
  LeaseKeeper* const leases_;
  WorkerStreams* const streams_;
  LeaseRevoker* const revoker_;
  governance::LlmGovernor governor_;
  governance::UsageBook usage_book_;
  std::string usage_month_;  // the month usage_book_ holds ("2026-11")
  // The limits' tenant budgets, for ReadTenantBudgets on RPC threads;
  // written on the loop with every new set of limits.
  mutable absl::Mutex budgets_mu_;
  std::map<std::string, governance::TenantBudget> budgets_ ABSL_GUARDED_BY(budgets_mu_);
  // Calls reported this batch for runs no longer in memory, by run.
  absl::flat_hash_map<std::string, v1::Usage> late_bills_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_LLM_LLM_GRANTS_H_
