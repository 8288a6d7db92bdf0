#include "scheduler/engine/tool_calls/prior_work.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/policy/effective_policy.h"
#include "scheduler/policy/external_policy.h"
#include "scheduler/policy/prior_work_policy.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

// Bounds on what one SelectPriorWork request carries, so a huge run cannot
// make every dispatch ship megabytes to the PolicyService.
constexpr int kMaxPolicyTasks = 1000;
constexpr int kMaxPolicyCandidates = 500;

}  // namespace

void PriorWorkService::OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held) {
  if (auto pending = awaiting_policy_.find(lease_id); pending != awaiting_policy_.end()) {
    // The assignment waited for a PolicyService and was never sent: the
    // worker's slot is still free, so its credit comes back (not for a lease
    // that expired: it had left the table already).
    dispatch::ConnectedWorker* worker =
        was_held == nullptr ? nullptr : streams_->Find(was_held->stream_id);
    if (worker != nullptr) worker->credits++;
    awaiting_policy_.erase(pending);
  }
}

absl::StatusOr<v1::PriorWork> PriorWorkService::Select(ActiveRun& active,
                                                       const std::string& task_id) {
  RunState& run = *active.state;
  absl::StatusOr<policy::RequestLedger*> ledger = ledgers_->Get(run.root_run_id());
  v1::PriorWork prior_work;
  if (!ledger.ok()) {
    prior_work = Unreadable(ledger.status());
  } else {
    // A selection reads the bodies it picks from the store through the
    // ledger cache; a read that fails is kept in the ledger, not returned.
    (*ledger)->TakeReadError().IgnoreError();
    if (active.policy.has_compact()) {
      prior_work = summaries_->CompactPriorWork(active, **ledger, task_id);
    } else {
      prior_work = policy::SelectPriorWork(
          active.policy, policy::PolicyInput{**ledger, *active.graph, {run.run_id(), task_id}});
    }
    if (absl::Status read = (*ledger)->TakeReadError(); !read.ok()) return read;
  }
  Record(run.run_id(), task_id, prior_work);
  return prior_work;
}

v1::PriorWork PriorWorkService::Unreadable(const absl::Status& status) {
  v1::PriorWork prior_work;
  prior_work.mutable_meta()->set_policy("none");
  prior_work.mutable_meta()->set_fallback_reason(
      absl::StrCat("ledger unavailable: ", status.message()));
  return prior_work;
}

void PriorWorkService::Record(const std::string& run_id, const std::string& task_id,
                              const v1::PriorWork& prior_work) {
  if (options_.metrics != nullptr) {
    options_.metrics->PriorWorkSelected(prior_work.meta().selected(),
                                        prior_work.meta().tokens_approx());
  }
  // What GetTask shows as the task's prior work: the latest dispatch's.
  batch_->writes().Put(store::Column::kMeta, store::keys::PriorWork(run_id, task_id),
                       prior_work.SerializeAsString());
}

PriorWorkSource::Choice PriorWorkService::ChooseFor(ActiveRun& active, const std::string& task_id) {
  if (active.policy.has_compact() && summaries_->Park(active, task_id)) return Choice::Parked();
  if (policy::IsExternalPolicy(active.policy) && options_.policy_service != nullptr) {
    return Choice::AfterCommit();
  }
  absl::StatusOr<v1::PriorWork> selected = Select(active, task_id);
  if (!selected.ok()) return Choice::Failed(selected.status());
  return Choice::Send(*std::move(selected));
}

void PriorWorkService::SendAfterCommit(ActiveRun& active, v1::ConnectResponse message) {
  const v1::Assignment& assignment = message.assignment();
  RunState& run = *active.state;
  absl::StatusOr<policy::RequestLedger*> ledger = ledgers_->Get(run.root_run_id());
  const dispatch::Lease* lease = leases_->Find(assignment.lease_id());
  if (!ledger.ok() || lease == nullptr) {
    absl::StatusOr<v1::PriorWork> prior_work = Select(active, assignment.task_id());
    *message.mutable_assignment()->mutable_prior_work() =
        prior_work.ok() ? *std::move(prior_work) : Unreadable(prior_work.status());
    if (lease != nullptr) streams_->SendTo(lease->stream_id, std::move(message));
    return;
  }
  std::vector<v1::PolicyTaskView> tasks;
  for (const auto& [task_id, task] : run.tasks()) {
    if (static_cast<int>(tasks.size()) >= kMaxPolicyTasks) break;
    v1::PolicyTaskView& view = tasks.emplace_back();
    view.set_run_id(run.run_id());
    view.set_task_id(task_id);
    view.set_state(task.task().state());
    for (const policy::TaskKey& dep : active.graph->DirectDeps({run.run_id(), task_id})) {
      view.add_deps(dep.task_id);
    }
  }
  (*ledger)->TakeReadError().IgnoreError();
  v1::SelectPriorWorkRequest request = policy::BuildExternalRequest(
      policy::PolicyInput{**ledger, *active.graph, {run.run_id(), assignment.task_id()}}, tasks,
      kMaxPolicyCandidates);
  if (absl::Status read = (*ledger)->TakeReadError(); !read.ok()) {
    // The task is leased already: it goes out without prior work, saying why.
    *message.mutable_assignment()->mutable_prior_work() = Unreadable(read);
    Record(run.run_id(), assignment.task_id(), message.assignment().prior_work());
    streams_->SendTo(lease->stream_id, std::move(message));
    return;
  }
  const v1::CustomPolicy& custom = active.policy.custom();
  std::string lease_id = assignment.lease_id();
  awaiting_policy_[lease_id] = std::move(message);
  // Asked once the dispatch is committed; the answer comes back as an event.
  // The worker does not know of the task while the service decides, so
  // nothing heartbeats the lease: the answer (or the fallback) must come
  // well within it. Half the lease leaves the worker the other half to start.
  const int64_t timeout_ms = std::min(policy::EffectiveExternalTimeoutMs(custom),
                                      std::max<int64_t>(1, options_.lease_timeout_ms / 2));
  batch_->AfterCommit([this, address = custom.external(), request = std::move(request), timeout_ms,
                       lease_id]() mutable {
    options_.policy_service->Select(
        address, std::move(request), timeout_ms,
        [this, lease_id](absl::StatusOr<v1::SelectPriorWorkResponse> response) {
          poster_->Post([this, lease_id, response = std::move(response)]() mutable {
            OnExternalAnswer(lease_id, std::move(response));
          });
        });
  });
}

void PriorWorkService::OnExternalAnswer(const std::string& lease_id,
                                        absl::StatusOr<v1::SelectPriorWorkResponse> response) {
  auto pending = awaiting_policy_.find(lease_id);
  // The lease ended meanwhile (lost, cancelled): the task went elsewhere.
  if (pending == awaiting_policy_.end()) return;
  v1::ConnectResponse message = std::move(pending->second);
  awaiting_policy_.erase(pending);
  const dispatch::Lease* lease = leases_->Find(lease_id);
  ActiveRun* found = lease == nullptr ? nullptr : runs_->Find(lease->run_id);
  if (found == nullptr) return;
  ActiveRun& active = *found;
  RunState& run = *active.state;
  const std::string& task_id = message.assignment().task_id();
  absl::StatusOr<policy::RequestLedger*> ledger = ledgers_->Get(run.root_run_id());
  v1::PriorWork prior_work;
  if (!ledger.ok()) {
    prior_work = Unreadable(ledger.status());
  } else {
    policy::PolicyInput input{**ledger, *active.graph, {run.run_id(), task_id}};
    (*ledger)->TakeReadError().IgnoreError();
    prior_work =
        response.ok()
            ? policy::ApplyExternalResponse(*response, input)
            : policy::FallbackPriorWork(
                  input, absl::StrCat("PolicyService at ", active.policy.custom().external(), ": ",
                                      response.status().message()));
    // Leased already, as above: sent without prior work, saying why.
    if (absl::Status read = (*ledger)->TakeReadError(); !read.ok()) {
      prior_work = Unreadable(read);
    }
  }
  Record(run.run_id(), task_id, prior_work);
  *message.mutable_assignment()->mutable_prior_work() = std::move(prior_work);
  // A worker that disconnected meanwhile gets nothing; the lease expires or
  // its reconnect (not holding the task) re-queues it.
  if (lease->stream_id != 0) streams_->SendTo(lease->stream_id, std::move(message));
}

}  // namespace taskboard::engine
