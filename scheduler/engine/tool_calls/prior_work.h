#ifndef TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_PRIOR_WORK_H_
#define TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_PRIOR_WORK_H_

// What each dispatch carries of the request's earlier tool calls
// (docs/semantics.md#flow-policies): selected from the request's ledger by
// the run's flow policy when the task is sent, recorded for GetTask. A
// `compact` run's task may first wait for a summary (summaries.h); an
// external policy is asked after the dispatch is written, and the
// assignment goes out with its answer or the declared_deps_only fallback.
// An unreadable ledger never stops a task: it goes out without prior work,
// saying why.
//
// Loop thread only, except the PolicyService's answer, which comes back
// through the EventPoster.

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/dispatch/lease_table.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "scheduler/engine/core/event_poster.h"
#include "scheduler/engine/core/loop_batch.h"
#include "scheduler/engine/runs/active_runs.h"
#include "scheduler/engine/tool_calls/ledger_book.h"
#include "scheduler/engine/tool_calls/policy_service_caller.h"
#include "scheduler/engine/tool_calls/summaries.h"
#include "scheduler/engine/workers/lease_keeper.h"
#include "scheduler/engine/workers/prior_work_source.h"
#include "scheduler/engine/workers/worker_streams.h"
#include "taskboard/v1/policy.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

class PriorWorkService : public PriorWorkSource {
 public:
  struct Options {
    // An external policy's answer must come within half of it.
    int64_t lease_timeout_ms = 30'000;
    // Reaches client-run PolicyServices; null: external policies use their
    // declared_deps_only fallback at once.
    PolicyServiceCaller* policy_service = nullptr;
    EngineMetrics* metrics = nullptr;  // may be null
  };
  // Everything outlives this.
  PriorWorkService(Options options, LoopBatch* batch, ActiveRuns* runs, LedgerBook* ledgers,
                   LeaseKeeper* leases, WorkerStreams* streams, Summaries* summaries,
                   EventPoster* poster)
      : options_(options),
        batch_(batch),
        runs_(runs),
        ledgers_(ledgers),
        leases_(leases),
        streams_(streams),
        summaries_(summaries),
        poster_(poster) {}
  PriorWorkService(const PriorWorkService&) = delete;
  PriorWorkService& operator=(const PriorWorkService&) = delete;

  // PriorWorkSource: a compact run's task may park for a summary, an
  // external policy chooses after the commit, the others select now (a
  // store error reading the selected calls fails the task).
  Choice ChooseFor(ActiveRun& active, const std::string& task_id) override;
  // Asks the run's PolicyService once this batch is written (its deadline:
  // the policy's timeout, at most half the lease), then sends `message`
  // from the answer. Without a ledger or a lease it selects now instead.
  void SendAfterCommit(ActiveRun& active, v1::ConnectResponse message) override;
  // The summaries' part of PriorWorkSource (summaries.h).
  void DispatchSummaries() override { summaries_->Dispatch(); }
  void OnSummaryResult(const v1::TaskResult& result) override { summaries_->OnResult(result); }
  void OnSummaryReturned(absl::string_view lease_id) override { summaries_->OnReturned(lease_id); }

  // A lease ended: an assignment that waited for a PolicyService was never
  // sent, so the worker's credit comes back when the lease was still held
  // (an expired lease had left the table: no credit, as before).
  void OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held);

  // No observations, policy "none", fallback_reason naming `status`.
  static v1::PriorWork Unreadable(const absl::Status& status);

  // Assignments waiting for a PolicyService answer (tests).
  size_t awaiting() const { return awaiting_policy_.size(); }

 private:
  // Selects the task's prior work with the run's policy and records it for
  // GetTask. The store's error when reading the selected observations fails
  // (the caller fails the task); an unloadable ledger yields Unreadable.
  absl::StatusOr<v1::PriorWork> Select(ActiveRun& active, const std::string& task_id);
  void Record(const std::string& run_id, const std::string& task_id,
              const v1::PriorWork& prior_work);
  // The PolicyService answered (or failed) for the assignment of `lease_id`.
  void OnExternalAnswer(const std::string& lease_id,
                        absl::StatusOr<v1::SelectPriorWorkResponse> response);

  const Options options_;
  LoopBatch* const batch_;
  ActiveRuns* const runs_;
  LedgerBook* const ledgers_;
  LeaseKeeper* const leases_;
  WorkerStreams* const streams_;
  Summaries* const summaries_;
  EventPoster* const poster_;
  // Assignments waiting for a PolicyService answer, by lease id.
  absl::flat_hash_map<std::string, v1::ConnectResponse> awaiting_policy_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_TOOL_CALLS_PRIOR_WORK_H_
