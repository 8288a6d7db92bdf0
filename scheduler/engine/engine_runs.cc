// Engine: run-level events (submit, cancel, resume) and recovery at start.

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/log/log.h"
#include "scheduler/engine/child_runs.h"
#include "scheduler/engine/default_agent_choice.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/ids.h"
#include "scheduler/engine/run_control.h"
#include "scheduler/engine/run_finish.h"
#include "scheduler/engine/run_loader.h"
#include "scheduler/engine/run_reader.h"
#include "scheduler/engine/task_states.h"
#include "scheduler/flow/proto_value.h"
#include "scheduler/policy/effective_policy.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

v1::RunEvent RunStartedEvent(const std::vector<std::string>& reused) {
  v1::RunEvent event;
  event.mutable_run_started()->set_status(v1::RUN_STATUS_RUNNING);
  for (const std::string& phase : reused) event.mutable_run_started()->add_reused_phases(phase);
  return event;
}

}  // namespace

void Engine::Activate(std::unique_ptr<RunState> state, std::unique_ptr<Driver> driver,
                      v1::FlowSpec spec) {
  std::string run_id = state->run_id();
  batch_.Touch(run_id);
  ActiveRun& active = runs_[run_id];
  active.graph = std::make_unique<RunTaskGraph>(spec, state.get());
  active.policy = policy::EffectivePolicy(spec.flow_policy(), state->record().run().kind());
  // The engine reads only the flow's settings from here (tool cache,
  // webhook, priority, budget); a board's task list is in its driver and in
  // the store (GetRun), so a third copy is not kept while the run is active:
  // it was a sixth of a pending board task's memory.
  if (spec.has_board()) {
    // Swapped out, not cleared: a cleared repeated field keeps its elements.
    google::protobuf::RepeatedPtrField<v1::BoardTask> tasks;
    tasks.Swap(spec.mutable_board()->mutable_tasks());
  }
  active.spec = std::make_shared<const v1::FlowSpec>(std::move(spec));
  active.state = std::move(state);
  active.driver = std::move(driver);
}

absl::StatusOr<std::string> Engine::CreateRun(SubmitRequest& request, const v1::Run* parent,
                                              const std::string& parent_task_id,
                                              DriverStart start) {
  absl::StatusOr<std::unique_ptr<Driver>> driver = MakeDriver(request.spec, options_.limits);
  if (!driver.ok()) return driver.status();

  store::RunRecord record;
  v1::Run& run = *record.mutable_run();
  std::string run_id = NewRunId(batch_.now_ms(), batch_.rng());
  run.set_run_id(run_id);
  if (parent == nullptr) {
    run.set_root_run_id(run_id);
  } else {
    run.set_parent_run_id(parent->run_id());
    run.set_root_run_id(parent->root_run_id());
    record.set_parent_task_id(parent_task_id);
  }
  run.set_flow_name(request.spec.name());
  run.set_kind(request.spec.has_board()              ? v1::FLOW_KIND_BOARD
               : request.spec.has_plan_and_execute() ? v1::FLOW_KIND_PLAN_AND_EXECUTE
               : request.spec.has_supervisor()       ? v1::FLOW_KIND_SUPERVISOR
                                                     : v1::FLOW_KIND_TASKFLOW);
  run.set_status(v1::RUN_STATUS_RUNNING);
  *run.mutable_args() = flow::JsonToProtoValue(request.args).struct_value();
  run.set_session_id(request.session_id);
  *run.mutable_budget() = request.spec.budget();
  for (const auto& [key, value] : request.labels) (*run.mutable_labels())[key] = value;
  *run.mutable_created_at() = ToTimestamp(batch_.now_ms());
  record.set_created_unix_ms(batch_.now_ms());
  record.set_idempotency_key(request.idempotency_key);
  record.set_tenant(request.tenant);
  record.set_next_seq(1);
  if (!request.tenant.empty()) {
    batch_.writes().Put(store::Column::kMeta, store::keys::TenantRun(request.tenant, run_id), "");
  }

  batch_.writes().Put(store::Column::kMeta, store::keys::RunSpec(run_id),
                      request.spec.SerializeAsString());
  if (!request.idempotency_key.empty()) {
    batch_.writes().Put(store::Column::kMeta, store::keys::Idempotency(request.idempotency_key),
                        run_id);
    idempotency_[request.idempotency_key] = run_id;
  }
  auto state = std::make_unique<RunState>(std::move(record));
  state->MutableRecord();
  state->Emit(RunStartedEvent({}));
  if (start == DriverStart::kNow) {
    (*driver)->Start(*state, batch_.now_ms());
  } else {
    state->MutableRecord().set_start_pending(true);
  }
  if (options_.metrics != nullptr) options_.metrics->RunSubmitted(run.kind());
  log::Info("run submitted")
      .With("run_id", run_id)
      .With("kind", v1::FlowKind_Name(run.kind()))
      .With("flow", run.flow_name())
      .WithNonEmpty("parent_run_id", run.parent_run_id());
  Activate(std::move(state), *std::move(driver), std::move(request.spec));
  if (start == DriverStart::kNextBatch) StartLater(run_id);
  return run_id;
}

void Engine::DoSubmit(SubmitRequest& request,
                      std::function<void(absl::StatusOr<SubmitResult>)>& done) {
  if (!request.idempotency_key.empty()) {
    std::string existing;
    auto it = idempotency_.find(request.idempotency_key);
    if (it != idempotency_.end()) {
      existing = it->second;
    } else {
      absl::StatusOr<std::optional<std::string>> stored = options_.store->Get(
          store::Column::kMeta, store::keys::Idempotency(request.idempotency_key));
      if (!stored.ok()) return done(stored.status());
      if (stored->has_value()) existing = **stored;
    }
    if (!existing.empty()) {
      // Replied after this batch commits, like a new run, so a retried
      // SubmitRun never observes a run id before the run is durable.
      batch_.AfterCommit([done, existing] { done(SubmitResult{existing, true}); });
      return;
    }
  }
  // Here, on the loop, because only the loop knows the connected workers.
  if (absl::Status defaulted = ApplyDefaultAgent(options_.default_agent, workers_, &request.spec);
      !defaulted.ok()) {
    return done(defaulted);
  }
  // The reply follows the batch that writes the run; its tasks are created
  // and written in the next one (decision 121: a board of 10,000 tasks
  // waited about 60 ms more for them).
  absl::StatusOr<std::string> run_id = CreateRun(request, nullptr, "", DriverStart::kNextBatch);
  if (!run_id.ok()) return done(run_id.status());
  batch_.AfterCommit([done, run_id = *run_id] { done(SubmitResult{run_id, false}); });
}

void Engine::StartLater(const std::string& run_id) {
  runs_[run_id].awaiting_start = true;
  pending_starts_.push_back(run_id);
  absl::MutexLock lock(&starting_mu_);
  starting_.try_emplace(run_id);
}

void Engine::StartPendingRuns() {
  if (pending_starts_.empty()) return;
  std::vector<std::string> started;
  started.swap(pending_starts_);
  for (const std::string& run_id : started) {
    auto it = runs_.find(run_id);
    if (it == runs_.end() || !it->second.awaiting_start) continue;
    it->second.awaiting_start = false;
    RunState& run = *it->second.state;
    run.MutableRecord().set_start_pending(false);
    batch_.Touch(run_id);
    it->second.driver->Start(run, batch_.now_ms());
  }
  // Reads waiting for these runs' tasks go on once this batch is written.
  batch_.AfterCommit([this, started = std::move(started)] { TasksCreated(&started); });
}

void Engine::WhenTasksCreated(const std::string& run_id, std::function<void()> then) {
  {
    absl::MutexLock lock(&starting_mu_);
    auto it = starting_.find(run_id);
    if (it != starting_.end()) {
      it->second.push_back(std::move(then));
      return;
    }
  }
  then();
}

void Engine::TasksCreated(const std::vector<std::string>* run_ids) {
  std::vector<std::function<void()>> reads;
  {
    absl::MutexLock lock(&starting_mu_);
    auto take = [&](auto it) {
      for (auto& read : it->second) reads.push_back(std::move(read));
      starting_.erase(it);
    };
    if (run_ids == nullptr) {
      while (!starting_.empty()) take(starting_.begin());
    } else {
      for (const std::string& run_id : *run_ids) {
        if (auto it = starting_.find(run_id); it != starting_.end()) take(it);
      }
    }
  }
  for (auto& read : reads) read();
}

void Engine::DoCancel(const std::string& run_id, const std::string& reason,
                      std::function<void(absl::StatusOr<v1::RunStatus>)>& done) {
  auto it = runs_.find(run_id);
  if (it == runs_.end()) {
    absl::StatusOr<store::RunRecord> record = ReadRunRecord(*options_.store, run_id);
    if (!record.ok()) return done(record.status());
    // After the effects of the batch that finished it (its run_finished).
    batch_.AfterCommit([done, status = record->run().status()] { done(status); });
    return;
  }
  CancelActive(*it->second.state, reason);
  batch_.AfterCommit([done] { done(v1::RUN_STATUS_CANCELLED); });
}

void Engine::CancelActive(RunState& run, const std::string& reason) {
  RevokeLeases(CancelRunState(run, reason, batch_.now_ms()), reason);
  batch_.Touch(run.run_id());
}

void Engine::RevokeLeases(const std::vector<std::string>& leases, const std::string& reason) {
  for (const std::string& lease_id : leases) {
    const dispatch::Lease* lease = leases_.Find(lease_id);
    if (lease == nullptr) continue;
    v1::ConnectResponse message;
    v1::Cancel& cancel = *message.mutable_cancel();
    cancel.set_task_id(lease->task_id);
    cancel.set_lease_id(lease_id);
    cancel.set_reason(reason.empty() ? "run cancelled" : reason);
    if (lease->stream_id != 0) SendTo(lease->stream_id, std::move(message));
    EndLease(lease_id);
  }
}

absl::StatusOr<std::unique_ptr<RunState>> Engine::LoadRun(const std::string& run_id) {
  return ReadRunState(*options_.store, run_id);
}

void Engine::DoResume(const std::string& run_id, const ResumeBudget& budget,
                      std::function<void(absl::StatusOr<ResumeResult>)>& done) {
  auto active = runs_.find(run_id);
  if (active != runs_.end()) {
    // An effect: the run's state may come from a batch still being written.
    batch_.AfterCommit(
        [done, answer = CheckResumable(active->second.state->record())] { done(answer); });
    return;
  }
  if (deletion_.has_value() && deletion_->root_run_id() == run_id) {
    return done(absl::FailedPreconditionError(
        absl::StrCat("run ", run_id, " is being deleted: it finished more than --retention ago")));
  }
  absl::StatusOr<std::unique_ptr<RunState>> state = LoadRun(run_id);
  if (!state.ok()) return done(state.status());
  if (absl::Status resumable = CheckResumable((*state)->record()); !resumable.ok()) {
    return done(resumable);
  }
  if (const std::string& parent = (*state)->record().run().parent_run_id(); !parent.empty()) {
    return done(absl::FailedPreconditionError(
        absl::StrCat("run ", run_id, " is a child run of ", parent,
                     "; child runs end with their parent: resume or re-run ", parent, " instead")));
  }
  if (absl::Status raised = RaiseBudget((*state)->MutableRecord(), budget.usd, budget.tokens);
      !raised.ok()) {
    return done(raised);
  }
  absl::StatusOr<ResumeResult> result = ResumeLoaded(*std::move(state));
  if (!result.ok()) return done(result.status());
  batch_.AfterCommit([done, result = *std::move(result)] { done(result); });
}

absl::StatusOr<ResumeResult> Engine::ResumeLoaded(std::unique_ptr<RunState> state) {
  const std::string run_id = state->run_id();
  absl::StatusOr<v1::FlowSpec> spec = ReadRunSpec(*options_.store, run_id);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<std::unique_ptr<Driver>> driver = MakeDriver(*spec, options_.limits);
  if (!driver.ok()) return driver.status();
  RunState& run = *state;
  PrepareResume(run);
  // Started here, whatever an earlier scheduler left undone.
  run.MutableRecord().set_start_pending(false);
  (*driver)->Resume(run, batch_.now_ms());
  ResumeResult result;
  result.run_id = run_id;
  for (const store::PhaseRecord& phase : run.record().phases()) {
    if (phase.reused()) result.reused_phases.push_back(phase.status().phase_id());
  }
  run.EmitFirst(RunStartedEvent(result.reused_phases));
  Activate(std::move(state), *std::move(driver), *std::move(spec));
  return result;
}

absl::Status Engine::Recover() {
  // Wall time of the stages, for the log line at the end.
  const absl::Time started = absl::Now();
  batch_.Begin(options_.clock->NowMs());
  std::vector<std::string> active;
  std::vector<std::string> undecodable;
  // Runs stored before the run indexes existed are indexed once; otherwise
  // the scan collects nothing for them.
  absl::StatusOr<std::optional<std::string>> indexed =
      options_.store->Get(store::Column::kMeta, store::keys::RunIndexesBuilt());
  const bool backfill = indexed.ok() && !indexed->has_value();
  std::vector<std::pair<std::string, int64_t>> finished_roots;
  std::vector<std::pair<std::string, std::string>> tenant_runs;
  absl::Status scanned = options_.store->Scan(
      store::Column::kRuns, "", "", [&](absl::string_view key, absl::string_view value) {
        std::optional<std::string> run_id = store::keys::ParseRun(key);
        if (!run_id.has_value()) {
          log::Error("ignoring a stored run key that does not decode")
              .With("key", absl::CHexEscape(key));
          return true;
        }
        store::RunRecord record;
        const bool decoded = record.ParseFromArray(value.data(), static_cast<int>(value.size()));
        if (backfill && decoded && !record.tenant().empty()) {
          tenant_runs.emplace_back(record.tenant(), *run_id);
        }
        if (!decoded) {
          undecodable.push_back(*std::move(run_id));
        } else if (!IsTerminal(record.run().status())) {
          active.push_back(*std::move(run_id));
        } else if (backfill && record.run().parent_run_id().empty()) {
          const int64_t finished_ms = ToUnixMs(record.run().finished_at());
          finished_roots.emplace_back(*std::move(run_id),
                                      finished_ms > 0 ? finished_ms : record.created_unix_ms());
        }
        return true;
      });
  if (!scanned.ok()) return scanned;
  if (options_.store->MayHaveLostWrites()) {
    log::Warn(
        "the store may have lost its last writes (no clean stop, and --durability wal "
        "with a machine restart, or none): event numbers of unfinished runs skip ahead so "
        "none is issued twice; their last results may run again")
        .With("runs", active.size())
        .With("skipped_seqs", kSeqGapAfterLostWrites);
  }
  if (backfill) BackfillRunIndexes(finished_roots, tenant_runs);
  // Each run is recovered on its own: one that cannot be is failed with the
  // reason and every other run goes on (a crash loop over one bad record
  // would stop every team's work).
  const absl::Time runs_scanned = absl::Now();
  bool quarantined = false;
  size_t tasks = 0;
  {
    // Loader threads read, parse and index the runs (run_loader.h); this
    // thread, the only one that touches the engine's state, takes them over
    // in scan order.
    RunLoader loader({options_.store, options_.limits, options_.recovery_threads},
                     std::move(active));
    while (std::optional<LoadedRun> loaded = loader.Next()) {
      const std::string run_id = loaded->run_id;
      if (loaded->status.ok()) tasks += loaded->state->tasks().size();
      if (absl::Status recovered = RecoverRun(*std::move(loaded)); !recovered.ok()) {
        Quarantine(run_id, recovered.message());
        quarantined = true;
      }
    }
  }
  const absl::Time loaded_all = absl::Now();
  for (const std::string& run_id : undecodable) {
    Quarantine(run_id, "its run record does not decode");
    quarantined = true;
  }
  if (options_.store->MayHaveLostWrites()) {
    // The skipped event numbers must be on disk before any is issued: a
    // second crash would otherwise skip to the same numbers again.
    Commit();
    if (absl::Status synced = options_.store->SyncAndConfirmRecovery(); !synced.ok()) {
      return synced;
    }
  }
  // Written now, before any worker is heard from; a crash before this commit
  // quarantines the same runs again on the next start.
  if (quarantined) Commit();
  if (absl::Status linked = RecoverChildLinks(); !linked.ok()) return linked;
  RecoverApprovals();
  // Cache entries come back too; expired ones are deleted by the first batch.
  if (absl::Status loaded = cache_.Load(*options_.store, batch_.now_ms(), &batch_.writes());
      !loaded.ok()) {
    return loaded;
  }
  const absl::Time done = absl::Now();
  log::Info("recovered the active runs")
      .With("runs", runs_.size())
      .With("tasks", tasks)
      .With("scan_runs_ms", absl::ToInt64Milliseconds(runs_scanned - started))
      .With("load_runs_ms", absl::ToInt64Milliseconds(loaded_all - runs_scanned))
      .With("links_approvals_cache_ms", absl::ToInt64Milliseconds(done - loaded_all))
      .With("total_ms", absl::ToInt64Milliseconds(done - started));
  // Otherwise recovery writes nothing; the first batch advances these runs.
  return absl::OkStatus();
}

void Engine::BackfillRunIndexes(
    const std::vector<std::pair<std::string, int64_t>>& finished_roots,
    const std::vector<std::pair<std::string, std::string>>& tenant_runs) {
  for (const auto& [run_id, finished_ms] : finished_roots) {
    batch_.writes().Put(store::Column::kMeta, store::keys::FinishedRun(finished_ms, run_id), "");
  }
  for (const auto& [tenant, run_id] : tenant_runs) {
    batch_.writes().Put(store::Column::kMeta, store::keys::TenantRun(tenant, run_id), "");
  }
  batch_.writes().Put(store::Column::kMeta, store::keys::RunIndexesBuilt(), "");
}

absl::Status Engine::RecoverRun(LoadedRun loaded) {
  if (!loaded.status.ok()) return loaded.status;
  const std::string& run_id = loaded.run_id;
  RunState& run = *loaded.state;
  if (!run.record().idempotency_key().empty()) {
    idempotency_[run.record().idempotency_key()] = run_id;
  }
  for (const auto& [task_id, task] : run.tasks()) {
    switch (task.task().state()) {
      case v1::TASK_STATE_RETRYING:
        timers_.Add({task.not_before_unix_ms(), TimerKind::kRetry, run_id, task_id, ""});
        break;
      case v1::TASK_STATE_DISPATCHED:
      case v1::TASK_STATE_RUNNING:
        if (AwaitsChildRun(task)) break;  // no worker holds it: its child run does
        // A person holds it; QueueReadyTasks re-arms its deadline below.
        if (WaitsForApproval(task)) break;
        // The worker may still be running it: wait for it to reconnect
        // holding the lease, or for the lease to expire.
        leases_.Add({task.lease_id(), run_id, task_id, task.task().worker_id(), "", 0,
                     batch_.now_ms() + options_.lease_timeout_ms});
        if (task.assignment().timeout_seconds() > 0) {
          timers_.Add({task.dispatched_unix_ms() + task.assignment().timeout_seconds() * 1000LL,
                       TimerKind::kTaskTimeout, run_id, task_id, task.lease_id()});
        }
        break;
      default:
        break;
    }
  }
  // Events the previous process published may be gone from the store (a
  // power loss with --durability wal, any crash with none): their numbers
  // are skipped, never issued again to other events (decision 76).
  if (options_.store->MayHaveLostWrites()) {
    store::RunRecord& record = run.MutableRecord();
    record.set_next_seq(std::max<int64_t>(record.next_seq(), 1) + kSeqGapAfterLostWrites);
    batch_.Touch(run_id);
  }
  // Accepted, then the scheduler stopped before its tasks were written.
  const bool start_pending = run.record().start_pending();
  Activate(std::move(loaded.state), std::move(loaded.driver), std::move(loaded.spec));
  if (start_pending) StartLater(run_id);
  RunState& active = *runs_[run_id].state;
  QueueReadyTasks(active, nullptr);
  // Recovery read every task parsed; those that wait go back to their
  // serialized form (RunState::TaskSlot) before the next run loads.
  active.Freeze();
  return absl::OkStatus();
}

void Engine::Quarantine(const std::string& run_id, absl::string_view reason) {
  // Whatever of the run can still be read is kept (its tenant, labels,
  // usage); its events go on after the last one stored, never over one.
  absl::StatusOr<store::RunRecord> stored = ReadRunRecord(*options_.store, run_id);
  store::RunRecord record = stored.ok() ? *std::move(stored) : store::RunRecord();
  v1::Run& view = *record.mutable_run();
  view.set_run_id(run_id);
  int64_t last_seq = view.last_seq();
  (void)options_.store->ScanPrefix(
      store::Column::kEvents, store::keys::EventsOfRun(run_id),
      [&](absl::string_view key, absl::string_view) {
        if (std::optional<store::keys::SeqKey> event = store::keys::ParseEvent(key)) {
          last_seq = std::max(last_seq, static_cast<int64_t>(event->seq));
        }
        return true;
      });
  view.set_last_seq(last_seq);
  // Failed now: a run accepted and never started is not started later.
  record.set_start_pending(false);
  auto state = std::make_unique<RunState>(std::move(record));
  const std::string error = absl::StrCat("unrecoverable: ", reason);
  FinishRun(*state, v1::RUN_STATUS_FAILED, "", error, batch_.now_ms());
  log::Error("run quarantined: its records cannot be recovered; it is failed, other runs go on")
      .With("run_id", run_id)
      .With("error", error);
  if (options_.metrics != nullptr) options_.metrics->RunQuarantined();
  // Committed like any finished run (Commit drops it from runs_ again).
  runs_.erase(run_id);
  runs_[run_id].state = std::move(state);
  batch_.Touch(run_id);
}

}  // namespace taskboard::engine
