// Engine: tool calls (the shared cache and the observation ledger) and the
// prior work each dispatch carries (docs/semantics.md#flow-policies and
// docs/semantics.md#tool-cache).

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/engine/tool_permission.h"
#include "scheduler/policy/effective_policy.h"
#include "scheduler/policy/external_policy.h"
#include "scheduler/policy/prior_work_policy.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

const v1::ToolDeclaration* FindDeclaration(const dispatch::ConnectedWorker& worker,
                                           absl::string_view tool_name) {
  for (const v1::ToolDeclaration& tool : worker.hello.tools()) {
    if (tool.name() == tool_name) return &tool;
  }
  return nullptr;
}

// Bounds on what one SelectPriorWork request carries, so a huge run cannot
// make every dispatch ship megabytes to the PolicyService.
constexpr int kMaxPolicyTasks = 1000;
constexpr int kMaxPolicyCandidates = 500;

// Whether the ledger's `seen` records the call `reported` describes.
bool SameCall(const v1::Observation& seen, const v1::ToolObservation& reported) {
  return seen.tool_name() == reported.tool_name() && seen.args_json() == reported.args_json() &&
         seen.duration_ms() == reported.duration_ms() && seen.cached() == reported.cached() &&
         (reported.error().empty()
              ? seen.error().empty() && seen.result_json() == reported.result_json()
              : seen.error() == reported.error());
}

}  // namespace

cache::CallContext Engine::CallContextFor(const ActiveRun& active,
                                          const dispatch::ConnectedWorker& worker,
                                          absl::string_view task_id,
                                          absl::string_view tool_name) const {
  const store::RunRecord& record = active.state->record();
  cache::CallContext context;
  context.tenant = record.tenant();
  context.run_id = record.run().run_id();
  context.root_run_id = record.run().root_run_id();
  context.session_id = record.run().session_id();
  context.worker_id = worker.worker_id;
  context.decl = FindDeclaration(worker, tool_name);
  context.flow_cfg = &active.spec->tool_cache();
  // A taskflow phase's `cacheable` override applies to all of its tasks.
  if (const store::TaskRecord* task = active.state->FindTask(task_id); task != nullptr) {
    for (const v1::Phase& phase : active.spec->taskflow().phases()) {
      if (phase.id() == task->task().phase_id() && phase.has_cacheable()) {
        context.phase = &phase.cacheable();
      }
    }
  }
  return context;
}

void Engine::OnToolLookup(uint64_t stream_id, const dispatch::ConnectedWorker& worker,
                          const v1::ToolLookup& lookup) {
  ActiveRun* active = workers_.leases().CurrentRun(lookup.lease_id(), lookup.task_id());
  // A superseded lease (the worker should stop; meanwhile nothing it does
  // is shared), or a tool the task may not call: neither served from the
  // cache nor joining its in-flight calls (tool_permission.h).
  if (active == nullptr ||
      !CheckToolAllowed(*active->state, lookup.task_id(), lookup.tool_name()).ok()) {
    v1::ConnectResponse reply;
    reply.mutable_tool_decision()->set_request_id(lookup.request_id());
    reply.mutable_tool_decision()->set_outcome(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
    workers_.streams().SendTo(stream_id, std::move(reply));
    return;
  }
  cache::Decision decision =
      cache_.Decide(CallContextFor(*active, worker, lookup.task_id(), lookup.tool_name()), lookup,
                    batch_.now_ms());
  if (!decision.warning.empty() && active->warned.insert(decision.warning).second) {
    v1::RunEvent event;
    event.mutable_warning()->set_message(
        absl::StrCat("task '", lookup.task_id(), "': ", decision.warning));
    active->state->Emit(std::move(event));
    batch_.Touch(active->state->run_id());
  }
  if (decision.outcome == cache::Decision::Outcome::kWait) return;  // answered when it lands
  v1::ConnectResponse reply;
  *reply.mutable_tool_decision() = std::move(decision.reply);
  workers_.streams().SendTo(stream_id, std::move(reply));
}

void Engine::OnToolObservation(const dispatch::ConnectedWorker& worker,
                               const v1::ToolObservation& as_reported) {
  ActiveRun* active = workers_.leases().CurrentRun(as_reported.lease_id(), as_reported.task_id());
  // Fencing, as for results: a superseded attempt's calls are not the run's.
  if (active == nullptr) return;
  // A call of a tool the task may not call is recorded as an error
  // (tool_permission.h).
  const absl::Status allowed =
      CheckToolAllowed(*active->state, as_reported.task_id(), as_reported.tool_name());
  const v1::ToolObservation not_allowed =
      allowed.ok() ? v1::ToolObservation() : RefusedObservation(as_reported, allowed);
  const v1::ToolObservation& reported = allowed.ok() ? as_reported : not_allowed;
  RunState& run = *active->state;
  const std::string& request_id = run.root_run_id();
  absl::StatusOr<policy::RequestLedger*> ledger = ledgers_.Get(request_id);
  if (!ledger.ok()) {
    // The stored ledger is unreadable; recording on top of it would corrupt
    // the sequence. Keep the run going without this observation.
    v1::RunEvent event;
    event.mutable_warning()->set_message(absl::StrCat(
        "tool call of task '", reported.task_id(), "' not recorded: ", ledger.status().message()));
    run.Emit(std::move(event));
    batch_.Touch(run.run_id());
    return;
  }
  // A worker sends the observations of the calls it ran for the cache (a
  // call id) again after a reconnect until their task's result is
  // acknowledged: one lost with a scheduler that died before committing it
  // still reaches the ledger and the cache. One already recorded (the same
  // call of the same task, to the millisecond) is dropped; its cache entry
  // was committed with it.
  // A call still in flight is the report it waits for, never a copy.
  if (!reported.call_id().empty() && !cache_.CallInFlight(reported.call_id())) {
    absl::StatusOr<std::vector<v1::Observation>> own =
        (*ledger)->Read((*ledger)->SeqsOfTask({run.run_id(), reported.task_id()}));
    if (!own.ok()) {
      // Unable to tell a resent call from a new one; recording it could
      // count it twice. The worker resends it until its task's result is
      // acknowledged, so a later report can still land.
      v1::RunEvent event;
      event.mutable_warning()->set_message(absl::StrCat(
          "tool call of task '", reported.task_id(), "' not recorded: ", own.status().message()));
      run.Emit(std::move(event));
      batch_.Touch(run.run_id());
      return;
    }
    for (const v1::Observation& seen : *own) {
      if (SameCall(seen, reported)) return;
    }
  }
  // An oversized result is refused: recorded as an error (never cached), so
  // waiting callers are told to run the call themselves and the ledger,
  // store and prior work never carry it.
  v1::ToolObservation refused;
  const bool too_large =
      static_cast<int64_t>(reported.result_json().size()) > options_.limits.max_tool_result_bytes;
  if (too_large) {
    refused = reported;
    refused.clear_result_json();
    refused.set_error(absl::StrCat(
        "tool '", reported.tool_name(), "' returned ", reported.result_json().size(),
        " bytes, over the scheduler's limit of ", options_.limits.max_tool_result_bytes,
        " bytes (scheduler flag ", limit_flags::kMaxToolResultBytes,
        "); not recorded or cached: have the tool write large results to a file and return "
        "its path"));
  }
  const v1::ToolObservation& accepted = too_large ? refused : reported;
  SendAnswers(
      cache_.Record(CallContextFor(*active, worker, reported.task_id(), reported.tool_name()),
                    accepted, batch_.now_ms(), &batch_.writes()));

  v1::Observation observation;
  observation.set_run_id(run.run_id());
  observation.set_task_id(reported.task_id());
  observation.set_tool_name(reported.tool_name());
  observation.set_args_json(reported.args_json());
  if (accepted.error().empty()) {
    observation.set_result_json(accepted.result_json());
  } else {
    observation.set_error(accepted.error());
  }
  observation.set_cached(reported.cached());
  observation.set_cache_age_ms(reported.cache_age_ms());
  if (reported.has_source_task()) *observation.mutable_source_task() = reported.source_task();
  *observation.mutable_ts() = ToTimestamp(batch_.now_ms());
  observation.set_duration_ms(reported.duration_ms());
  const v1::Observation& stored =
      ledgers_.Append(request_id, std::move(observation), batch_.writes());
  if (options_.metrics != nullptr) options_.metrics->LedgerAppended();

  v1::RunEvent event;
  *event.mutable_observation()->mutable_observation() = stored;
  run.Emit(std::move(event));
  batch_.Touch(run.run_id());
}

void Engine::SendAnswers(std::vector<cache::Answer> answers) {
  for (cache::Answer& answer : answers) {
    std::vector<dispatch::ConnectedWorker*> streams =
        workers_.streams().registry().FindByWorkerId(answer.caller.worker_id);
    // A waiter whose worker left was dropped by WorkerLost; a reconnecting
    // worker re-asks.
    if (streams.empty()) continue;
    v1::ConnectResponse reply;
    *reply.mutable_tool_decision() = std::move(answer.decision);
    workers_.streams().SendTo(streams.back()->stream_id, std::move(reply));
  }
}

void Engine::OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held) {
  if (auto pending = awaiting_policy_.find(lease_id); pending != awaiting_policy_.end()) {
    // The assignment waited for a PolicyService and was never sent: the
    // worker's slot is still free, so its credit comes back (not for a lease
    // that expired: it had left the table already).
    dispatch::ConnectedWorker* worker =
        was_held == nullptr ? nullptr : workers_.streams().Find(was_held->stream_id);
    if (worker != nullptr) worker->credits++;
    awaiting_policy_.erase(pending);
  }
  if (std::string job; TakeSummaryLease(lease_id, &job)) {
    FinishSummary(job, std::nullopt, "the summarizer's worker was lost; older calls were left out");
  }
  SendAnswers(cache_.LeaseLost(lease_id));
}

absl::StatusOr<v1::PriorWork> Engine::PriorWorkFor(ActiveRun& active, const std::string& task_id) {
  RunState& run = *active.state;
  absl::StatusOr<policy::RequestLedger*> ledger = ledgers_.Get(run.root_run_id());
  v1::PriorWork prior_work;
  if (!ledger.ok()) {
    prior_work = UnreadablePriorWork(ledger.status());
  } else {
    // A selection reads the bodies it picks from the store through the
    // ledger cache; a read that fails is kept in the ledger, not returned.
    (*ledger)->TakeReadError().IgnoreError();
    if (active.policy.has_compact()) {
      prior_work = CompactPriorWork(active, **ledger, task_id);
    } else {
      prior_work = policy::SelectPriorWork(
          active.policy, policy::PolicyInput{**ledger, *active.graph, {run.run_id(), task_id}});
    }
    if (absl::Status read = (*ledger)->TakeReadError(); !read.ok()) return read;
  }
  RecordPriorWork(run.run_id(), task_id, prior_work);
  return prior_work;
}

v1::PriorWork Engine::UnreadablePriorWork(const absl::Status& status) {
  v1::PriorWork prior_work;
  prior_work.mutable_meta()->set_policy("none");
  prior_work.mutable_meta()->set_fallback_reason(
      absl::StrCat("ledger unavailable: ", status.message()));
  return prior_work;
}

void Engine::RecordPriorWork(const std::string& run_id, const std::string& task_id,
                             const v1::PriorWork& prior_work) {
  if (options_.metrics != nullptr) {
    options_.metrics->PriorWorkSelected(prior_work.meta().selected(),
                                        prior_work.meta().tokens_approx());
  }
  // What GetTask shows as the task's prior work: the latest dispatch's.
  batch_.writes().Put(store::Column::kMeta, store::keys::PriorWork(run_id, task_id),
                      prior_work.SerializeAsString());
}

PriorWorkSource::Choice Engine::ChooseFor(ActiveRun& active, const std::string& task_id) {
  if (active.policy.has_compact() && ParkForSummary(active, task_id)) return Choice::Parked();
  if (policy::IsExternalPolicy(active.policy) && options_.policy_service != nullptr) {
    return Choice::AfterCommit();
  }
  absl::StatusOr<v1::PriorWork> selected = PriorWorkFor(active, task_id);
  if (!selected.ok()) return Choice::Failed(selected.status());
  return Choice::Send(*std::move(selected));
}

void Engine::SendAfterCommit(ActiveRun& active, v1::ConnectResponse message) {
  const v1::Assignment& assignment = message.assignment();
  RunState& run = *active.state;
  absl::StatusOr<policy::RequestLedger*> ledger = ledgers_.Get(run.root_run_id());
  const dispatch::Lease* lease = workers_.leases().Find(assignment.lease_id());
  if (!ledger.ok() || lease == nullptr) {
    absl::StatusOr<v1::PriorWork> prior_work = PriorWorkFor(active, assignment.task_id());
    *message.mutable_assignment()->mutable_prior_work() =
        prior_work.ok() ? *std::move(prior_work) : UnreadablePriorWork(prior_work.status());
    if (lease != nullptr) workers_.streams().SendTo(lease->stream_id, std::move(message));
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
    *message.mutable_assignment()->mutable_prior_work() = UnreadablePriorWork(read);
    RecordPriorWork(run.run_id(), assignment.task_id(), message.assignment().prior_work());
    workers_.streams().SendTo(lease->stream_id, std::move(message));
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
  batch_.AfterCommit([this, address = custom.external(), request = std::move(request), timeout_ms,
                      lease_id]() mutable {
    options_.policy_service->Select(
        address, std::move(request), timeout_ms,
        [this, lease_id](absl::StatusOr<v1::SelectPriorWorkResponse> response) {
          Post([this, lease_id, response = std::move(response)]() mutable {
            OnExternalPriorWork(lease_id, std::move(response));
          });
        });
  });
}

void Engine::OnExternalPriorWork(const std::string& lease_id,
                                 absl::StatusOr<v1::SelectPriorWorkResponse> response) {
  auto pending = awaiting_policy_.find(lease_id);
  // The lease ended meanwhile (lost, cancelled): the task went elsewhere.
  if (pending == awaiting_policy_.end()) return;
  v1::ConnectResponse message = std::move(pending->second);
  awaiting_policy_.erase(pending);
  const dispatch::Lease* lease = workers_.leases().Find(lease_id);
  ActiveRun* found = lease == nullptr ? nullptr : runs_.active().Find(lease->run_id);
  if (found == nullptr) return;
  ActiveRun& active = *found;
  RunState& run = *active.state;
  const std::string& task_id = message.assignment().task_id();
  absl::StatusOr<policy::RequestLedger*> ledger = ledgers_.Get(run.root_run_id());
  v1::PriorWork prior_work;
  if (!ledger.ok()) {
    prior_work = UnreadablePriorWork(ledger.status());
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
      prior_work = UnreadablePriorWork(read);
    }
  }
  RecordPriorWork(run.run_id(), task_id, prior_work);
  *message.mutable_assignment()->mutable_prior_work() = std::move(prior_work);
  // A worker that disconnected meanwhile gets nothing; the lease expires or
  // its reconnect (not holding the task) re-queues it.
  if (lease->stream_id != 0) workers_.streams().SendTo(lease->stream_id, std::move(message));
}

}  // namespace taskboard::engine
