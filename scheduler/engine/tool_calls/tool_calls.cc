#include "scheduler/engine/tool_calls/tool_calls.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/cache/cache_key.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/engine/tool_calls/tool_permission.h"

namespace taskboard::engine {
namespace {

const v1::ToolDeclaration* FindToolDeclaration(const dispatch::ConnectedWorker& worker,
                                               absl::string_view tool_name) {
  for (const v1::ToolDeclaration& tool : worker.hello.tools()) {
    if (tool.name() == tool_name) return &tool;
  }
  return nullptr;
}

// Whether the ledger's `seen` records the call `reported` describes.
bool SameCall(const v1::Observation& seen, const v1::ToolObservation& reported) {
  return seen.tool_name() == reported.tool_name() && seen.args_json() == reported.args_json() &&
         seen.duration_ms() == reported.duration_ms() && seen.cached() == reported.cached() &&
         (reported.error().empty()
              ? seen.error().empty() && seen.result_json() == reported.result_json()
              : seen.error() == reported.error());
}

}  // namespace

ToolCalls::ToolCalls(Options options, LoopBatch* batch, ActiveRuns* runs, WorkerManager* workers,
                     EventPoster* poster)
    : options_(options),
      batch_(batch),
      leases_(&workers->leases()),
      streams_(&workers->streams()),
      ledgers_(options_.store, options_.ledger_cache_bytes),
      summaries_({options_.lease_timeout_ms, options_.max_interpolated_bytes}, batch, runs,
                 &ledgers_, leases_, streams_, &workers->dispatcher()),
      prior_work_({options_.lease_timeout_ms, options_.policy_service, options_.metrics}, batch,
                  runs, &ledgers_, leases_, streams_, &summaries_, poster) {
  cache_.set_limits(options_.cache_limits);
  cache_.set_hold_ms(options_.tool_call_hold_ms);
}

cache::CallContext ToolCalls::CallContextFor(const ActiveRun& active,
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
  context.decl = FindToolDeclaration(worker, tool_name);
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

void ToolCalls::Warn(RunState& run, std::string message) {
  v1::RunEvent event;
  event.mutable_warning()->set_message(std::move(message));
  run.Emit(std::move(event));
  batch_->Touch(run.run_id());
}

void ToolCalls::OnLookup(const dispatch::ConnectedWorker& from, const v1::ToolLookup& lookup) {
  ActiveRun* active = leases_->CurrentRun(lookup.lease_id(), lookup.task_id());
  // A superseded lease (the worker should stop; meanwhile nothing it does
  // is shared), or a tool the task may not call: neither served from the
  // cache nor joining its in-flight calls (tool_permission.h).
  if (active == nullptr ||
      !CheckToolAllowed(*active->state, lookup.task_id(), lookup.tool_name()).ok()) {
    v1::ConnectResponse reply;
    reply.mutable_tool_decision()->set_request_id(lookup.request_id());
    reply.mutable_tool_decision()->set_outcome(v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
    streams_->SendTo(from.stream_id, std::move(reply));
    return;
  }
  cache::Decision decision =
      cache_.Decide(CallContextFor(*active, from, lookup.task_id(), lookup.tool_name()), lookup,
                    batch_->now_ms());
  if (!decision.warning.empty() &&
      warned_[active->state->run_id()].insert(decision.warning).second) {
    Warn(*active->state, absl::StrCat("task '", lookup.task_id(), "': ", decision.warning));
  }
  if (decision.outcome == cache::Decision::Outcome::kWait) return;  // answered when it lands
  v1::ConnectResponse reply;
  *reply.mutable_tool_decision() = std::move(decision.reply);
  streams_->SendTo(from.stream_id, std::move(reply));
}

void ToolCalls::OnObservation(const dispatch::ConnectedWorker& from,
                              const v1::ToolObservation& as_reported) {
  ActiveRun* active = leases_->CurrentRun(as_reported.lease_id(), as_reported.task_id());
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
    return Warn(run, absl::StrCat("tool call of task '", reported.task_id(),
                                  "' not recorded: ", ledger.status().message()));
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
      return Warn(run, absl::StrCat("tool call of task '", reported.task_id(),
                                    "' not recorded: ", own.status().message()));
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
      static_cast<int64_t>(reported.result_json().size()) > options_.max_tool_result_bytes;
  if (too_large) {
    refused = reported;
    refused.clear_result_json();
    refused.set_error(absl::StrCat(
        "tool '", reported.tool_name(), "' returned ", reported.result_json().size(),
        " bytes, over the scheduler's limit of ", options_.max_tool_result_bytes,
        " bytes (scheduler flag ", limit_flags::kMaxToolResultBytes,
        "); not recorded or cached: have the tool write large results to a file and return "
        "its path"));
  }
  const v1::ToolObservation& accepted = too_large ? refused : reported;
  SendAnswers(cache_.Record(CallContextFor(*active, from, reported.task_id(), reported.tool_name()),
                            accepted, batch_->now_ms(), &batch_->writes()));

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
  *observation.mutable_ts() = ToTimestamp(batch_->now_ms());
  observation.set_duration_ms(reported.duration_ms());
  const v1::Observation& stored =
      ledgers_.Append(request_id, std::move(observation), batch_->writes());
  if (options_.metrics != nullptr) options_.metrics->LedgerAppended();

  v1::RunEvent event;
  *event.mutable_observation()->mutable_observation() = stored;
  run.Emit(std::move(event));
  batch_->Touch(run.run_id());
}

void ToolCalls::SendAnswers(std::vector<cache::Answer> answers) {
  for (cache::Answer& answer : answers) {
    std::vector<dispatch::ConnectedWorker*> streams =
        streams_->registry().FindByWorkerId(answer.caller.worker_id);
    // A waiter whose worker left was dropped by WorkerLost; a reconnecting
    // worker re-asks.
    if (streams.empty()) continue;
    v1::ConnectResponse reply;
    *reply.mutable_tool_decision() = std::move(answer.decision);
    streams_->SendTo(streams.back()->stream_id, std::move(reply));
  }
}

v1::GetCacheStatsResponse ToolCalls::CacheStats(const std::optional<std::string>& tenant) const {
  // The counts are kept by the cache itself (cache/cache_stats.h); this only
  // reads them on the loop, where the cache lives (docs/tool-cache.md).
  v1::GetCacheStatsResponse response;
  response.set_max_entries_per_tenant(cache_.limits().max_entries_per_tenant);
  int64_t entries = 0;
  for (cache::CacheStatsRow& row : cache_.StatsRows(tenant)) {
    v1::CacheStatsRow& out = *response.add_rows();
    out.set_tenant(std::move(row.tenant));
    out.set_scope(row.scope);
    out.set_tool(std::move(row.tool));
    out.set_entries(row.entries);
    out.set_hits(row.hits);
    out.set_misses(row.misses);
    out.set_coalesced(row.coalesced);
    entries += row.entries;
  }
  response.set_entries(entries);
  return response;
}

absl::Status ToolCalls::LoadCache(bool runs_recovered) {
  // After a restart or a takeover, workers may still be running calls they
  // got MISS for from the scheduler before: identical calls wait for their
  // announcements a while. With no active run, no call is out there.
  if (runs_recovered) cache_.HoldNewCalls(batch_->now_ms());
  return cache_.Load(*options_.store, batch_->now_ms(), &batch_->writes());
}

void ToolCalls::SweepCache() { cache_.Sweep(batch_->now_ms(), &batch_->writes()); }

void ToolCalls::ReleaseHeldCalls() {
  std::optional<int64_t> next = cache_.NextRelease();
  if (!next.has_value() || *next > batch_->now_ms()) return;
  SendAnswers(cache_.ReleaseHeld(batch_->now_ms()));
}

void ToolCalls::OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held) {
  prior_work_.OnLeaseEnded(lease_id, was_held);
  summaries_.OnLeaseLost(lease_id);
  SendAnswers(cache_.LeaseLost(lease_id));
}

void ToolCalls::OnWorkerGone(const std::string& worker_id) {
  SendAnswers(cache_.WorkerLost(worker_id, batch_->now_ms()));
}

void ToolCalls::OnRunLeftMemory(const std::string& run_id) {
  ledgers_.Forget(run_id);
  warned_.erase(run_id);
}

void ToolCalls::OnRootRunDeleted(const RunDeletion& deletion) {
  cache_.RemoveScope(
      cache::ScopePrefix(deletion.tenant(), v1::CACHE_SCOPE_REQUEST, deletion.root_run_id()),
      &batch_->writes());
  for (const std::string& run_id : deletion.run_ids()) {
    cache_.RemoveScope(cache::ScopePrefix(deletion.tenant(), v1::CACHE_SCOPE_RUN, run_id),
                       &batch_->writes());
  }
  ledgers_.Forget(deletion.root_run_id());
}

}  // namespace taskboard::engine
