#include "scheduler/engine/runs/run_manager.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/engine/core/ids.h"
#include "scheduler/engine/runs/default_agent_choice.h"
#include "scheduler/engine/runs/run_loader.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/runs/started_runs.h"
#include "scheduler/engine/state/run_control.h"
#include "scheduler/engine/state/run_deadline.h"
#include "scheduler/engine/state/run_trace.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/proto_value.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

v1::RunEvent RunStartedEvent(const std::vector<std::string>& reused) {
  v1::RunEvent event;
  event.mutable_run_started()->set_status(v1::RUN_STATUS_RUNNING);
  for (const std::string& phase : reused) event.mutable_run_started()->add_reused_phases(phase);
  return event;
}

// An answer that does not wait for a write of its own still goes out as an
// effect of the current batch: what it read (a run, a key, the workers) may
// come from a batch the in-sync followers have not acknowledged yet, and on a
// replicated leader nothing is seen before they do
// (docs/high-availability.md#acknowledged-writes).
template <typename Done, typename Answer>
void ReplyAfterCommit(LoopBatch& batch, Done& done, Answer answer) {
  batch.AfterCommit([done, answer = std::move(answer)]() mutable { done(std::move(answer)); });
}

}  // namespace

RunManager::RunManager(Options options, LoopBatch* batch, TimerQueue* timers, LeaseRevoker* revoker,
                       RunListener* listener)
    : options_(std::move(options)),
      batch_(batch),
      timers_(timers),
      revoker_(revoker),
      starting_(&active_, batch),
      idempotency_(options_.store),
      retention_(options_.retention, options_.store, &active_, batch, &idempotency_, listener,
                 options_.metrics),
      nested_(this, batch, revoker) {}

ActiveRun& RunManager::Activate(std::unique_ptr<RunState> state, std::unique_ptr<Driver> driver,
                                v1::FlowSpec spec) {
  batch_->Touch(state->run_id());
  const v1::Run& view = state->record().run();
  // A past deadline (the scheduler was down when it passed) fires in the
  // next batch.
  if (const int64_t deadline_ms = RunDeadlineMs(view);
      deadline_ms > 0 && !IsTerminal(view.status())) {
    timers_->Add({deadline_ms, TimerKind::kRunDeadline, view.run_id(), "", ""});
  }
  return active_.Activate(std::move(state), std::move(driver), std::move(spec));
}

absl::StatusOr<std::string> RunManager::CreateRun(SubmitRequest& request, const v1::Run* parent,
                                                  const std::string& parent_task_id,
                                                  DriverStart start) {
  if (parent != nullptr) {
    if (absl::Status deep = CheckChildDepth(*parent, options_.limits); !deep.ok()) return deep;
  }
  absl::StatusOr<std::unique_ptr<Driver>> driver = MakeDriver(request.spec, options_.limits);
  if (!driver.ok()) return driver.status();

  const int64_t now_ms = batch_->now_ms();
  store::WriteBatch& writes = batch_->writes();
  store::RunRecord record;
  v1::Run& run = *record.mutable_run();
  std::string run_id = NewRunId(now_ms, batch_->rng());
  run.set_run_id(run_id);
  if (parent == nullptr) {
    run.set_root_run_id(run_id);
  } else {
    run.set_parent_run_id(parent->run_id());
    run.set_root_run_id(parent->root_run_id());
    run.set_depth(parent->depth() + 1);
    run.set_parent_task_id(parent_task_id);
    record.set_parent_task_id(parent_task_id);
  }
  run.set_flow_name(request.spec.name());
  // MakeDriver above refused a spec without a kind.
  run.set_kind(flow::RunKindOf(request.spec));
  run.set_status(v1::RUN_STATUS_RUNNING);
  *run.mutable_args() = flow::JsonToProtoValue(request.args).struct_value();
  run.set_session_id(request.session_id);
  *run.mutable_budget() = request.spec.budget();
  if (std::optional<v1::RunDeadline> deadline = ChooseRunDeadline(
          request.spec, request.run_timeout_seconds, request.run_timeout_source)) {
    StartRunDeadline(*deadline, now_ms);
    *run.mutable_deadline() = *std::move(deadline);
  }
  for (const auto& [key, value] : request.labels) (*run.mutable_labels())[key] = value;
  *run.mutable_created_at() = ToTimestamp(now_ms);
  record.set_created_unix_ms(now_ms);
  record.set_idempotency_key(request.idempotency_key);
  record.set_tenant(request.tenant);
  record.set_next_seq(1);
  if (options_.tracer != nullptr && options_.tracer->enabled()) {
    const otel::SpanContext* parent = request.trace_parent ? &*request.trace_parent : nullptr;
    *record.mutable_trace() = NewRunTrace(options_.tracer->sampler(), parent);
  }
  if (!request.tenant.empty()) {
    writes.Put(store::Column::kMeta, store::keys::TenantRun(request.tenant, run_id), "");
  }

  writes.Put(store::Column::kMeta, store::keys::RunSpec(run_id), request.spec.SerializeAsString());
  if (!request.idempotency_key.empty()) {
    idempotency_.Record(request.idempotency_key, run_id, writes);
  }
  auto state = std::make_unique<RunState>(std::move(record));
  state->MutableRecord();
  state->Emit(RunStartedEvent({}));
  if (start == DriverStart::kNow) {
    (*driver)->Start(*state, now_ms);
  } else {
    state->MutableRecord().set_start_pending(true);
  }
  if (options_.metrics != nullptr) options_.metrics->RunSubmitted(run.kind());
  log::Info("run submitted")
      .With("run_id", run_id)
      .With("kind", v1::FlowKind_Name(run.kind()))
      .With("flow", run.flow_name())
      .WithNonEmpty("parent_run_id", run.parent_run_id());
  ActiveRun& active = Activate(std::move(state), *std::move(driver), std::move(request.spec));
  if (start == DriverStart::kNextBatch) starting_.StartLater(active);
  return run_id;
}

void RunManager::Submit(SubmitRequest& request, const dispatch::WorkerRegistry& workers,
                        std::function<void(absl::StatusOr<SubmitResult>)>& done) {
  absl::StatusOr<SubmitResult> result = SubmitNow(request, workers);
  // An error is answered after the batch commits too: it may reflect state
  // (a key's run) that only this batch makes durable on the followers.
  if (!result.ok()) return ReplyAfterCommit(*batch_, done, result.status());
  // Replied after this batch commits, also for a key that named an earlier
  // run, so a retried SubmitRun never observes a run id before the run is
  // durable.
  batch_->AfterCommit([done, result = *std::move(result)] { done(result); });
}

absl::StatusOr<SubmitResult> RunManager::SubmitNow(SubmitRequest& request,
                                                   const dispatch::WorkerRegistry& workers) {
  if (!request.idempotency_key.empty()) {
    absl::StatusOr<std::string> existing = idempotency_.Find(request.idempotency_key);
    if (!existing.ok()) return existing.status();
    if (!existing->empty()) return SubmitResult{*existing, true};
  }
  // Here, on the loop, because only the loop knows the connected workers.
  if (absl::Status defaulted = ApplyDefaultAgent(options_.default_agent, workers, &request.spec);
      !defaulted.ok()) {
    return defaulted;
  }
  if (request.started_by.has_value()) return SubmitStartedBy(request);
  // The reply follows the batch that writes the run; its tasks are created
  // and written in the next one (decision 121: a board of 10,000 tasks
  // waited about 60 ms more for them).
  absl::StatusOr<std::string> run_id = CreateRun(request, nullptr, "", DriverStart::kNextBatch);
  if (!run_id.ok()) return run_id.status();
  return SubmitResult{*run_id, false};
}

absl::StatusOr<SubmitResult> RunManager::SubmitStartedBy(SubmitRequest& request) {
  const StartedBy& started_by = *request.started_by;
  absl::StatusOr<RunState*> parent =
      FindStartingRun(active_, *options_.store, started_by, request.tenant, options_.limits);
  if (!parent.ok()) return parent.status();
  RunState& run = **parent;
  // Without a traceparent of the caller's own, the run's span nests under
  // the attempt of the task whose agent started it.
  if (!request.trace_parent.has_value() && IsTraced(run.record().trace())) {
    const store::TaskRecord* task = run.FindTask(started_by.task_id);
    request.trace_parent = AttemptSpanContext(run.record().trace(), started_by.task_id,
                                              std::max(1, task->task().attempt()));
  }
  absl::StatusOr<std::string> run_id =
      CreateRun(request, &run.record().run(), started_by.task_id, DriverStart::kNextBatch);
  if (!run_id.ok()) return run_id.status();
  // Listed with the parent's children, so it is cancelled when the parent
  // ends and deleted with its root (nested_runs.h, retention.h).
  run.MutableRecord().mutable_run()->add_child_run_ids(*run_id);
  batch_->Touch(run.run_id());
  return SubmitResult{*run_id, false};
}

void RunManager::Cancel(const std::string& run_id, const std::string& reason,
                        std::function<void(absl::StatusOr<v1::RunStatus>)>& done) {
  ActiveRun* active = active_.Find(run_id);
  if (active == nullptr) {
    absl::StatusOr<store::RunRecord> record = ReadRunRecord(*options_.store, run_id);
    if (!record.ok()) return ReplyAfterCommit(*batch_, done, record.status());
    // After the effects of the batch that finished it (its run_finished).
    batch_->AfterCommit([done, status = record->run().status()] { done(status); });
    return;
  }
  CancelActive(*active->state, reason);
  batch_->AfterCommit([done] { done(v1::RUN_STATUS_CANCELLED); });
}

void RunManager::CancelActive(RunState& run, const std::string& reason) {
  revoker_->Revoke(CancelRunState(run, reason, batch_->now_ms()), reason);
  batch_->Touch(run.run_id());
}

void RunManager::OnDeadline(const std::string& run_id) {
  ActiveRun* active = active_.Find(run_id);
  if (active == nullptr) return;  // ended (and left memory) before its deadline
  RunState& run = *active->state;
  const v1::Run& view = run.record().run();
  const int64_t deadline_ms = RunDeadlineMs(view);
  // A run that ended, or a resumed one whose new deadline is later: this
  // timer was armed for an earlier deadline.
  if (IsTerminal(view.status()) || deadline_ms == 0 || deadline_ms > batch_->now_ms()) return;
  const std::string reason = RunDeadlinePassed(view.deadline());
  log::Info("run deadline passed")
      .With("run_id", run_id)
      .With("timeout_seconds", static_cast<int64_t>(view.deadline().timeout_seconds()))
      .With("source", RunDeadlineSourceWord(view.deadline().source()));
  // The workers holding its tasks are told to stop, as CancelRun tells them;
  // its child runs are cancelled by NestedRuns::Advance in this batch.
  revoker_->Revoke(TimeOutRunState(run, batch_->now_ms()), reason);
  batch_->Touch(run_id);
}

absl::StatusOr<std::unique_ptr<RunState>> RunManager::LoadRun(const std::string& run_id) {
  return ReadRunState(*options_.store, run_id);
}

std::optional<v1::RunStatus> RunManager::StatusOf(const std::string& run_id) {
  if (const ActiveRun* active = active_.Find(run_id); active != nullptr) {
    return active->state->record().run().status();
  }
  absl::StatusOr<store::RunRecord> record = ReadRunRecord(*options_.store, run_id);
  if (!record.ok()) return std::nullopt;
  return record->run().status();
}

void RunManager::Resume(const std::string& run_id, const ResumeBudget& budget,
                        std::function<void(absl::StatusOr<ResumeResult>)>& done) {
  if (const ActiveRun* active = active_.Find(run_id); active != nullptr) {
    // An effect: the run's state may come from a batch still being written.
    batch_->AfterCommit([done, answer = CheckResumable(active->state->record())] { done(answer); });
    return;
  }
  if (retention_.deleting(run_id)) {
    return ReplyAfterCommit(
        *batch_, done,
        absl::FailedPreconditionError(absl::StrCat(
            "run ", run_id, " is being deleted: it finished more than --retention ago")));
  }
  absl::StatusOr<std::unique_ptr<RunState>> state = LoadRun(run_id);
  if (!state.ok()) return ReplyAfterCommit(*batch_, done, state.status());
  if (absl::Status resumable = CheckResumable((*state)->record()); !resumable.ok()) {
    return ReplyAfterCommit(*batch_, done, resumable);
  }
  if (const std::string& parent = (*state)->record().run().parent_run_id(); !parent.empty()) {
    return ReplyAfterCommit(
        *batch_, done,
        absl::FailedPreconditionError(absl::StrCat(
            "run ", run_id, " is a child run of ", parent,
            "; child runs end with their parent: resume or re-run ", parent, " instead")));
  }
  if (absl::Status raised = RaiseBudget((*state)->MutableRecord(), budget.usd, budget.tokens);
      !raised.ok()) {
    return ReplyAfterCommit(*batch_, done, raised);
  }
  absl::StatusOr<ResumeResult> result = ResumeLoaded(*std::move(state));
  if (!result.ok()) return ReplyAfterCommit(*batch_, done, result.status());
  batch_->AfterCommit([done, result = *std::move(result)] { done(result); });
}

absl::StatusOr<ResumeResult> RunManager::ResumeLoaded(std::unique_ptr<RunState> state) {
  const std::string run_id = state->run_id();
  absl::StatusOr<v1::FlowSpec> spec = ReadRunSpec(*options_.store, run_id);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<std::unique_ptr<Driver>> driver = MakeDriver(*spec, options_.limits);
  if (!driver.ok()) return driver.status();
  RunState& run = *state;
  PrepareResume(run);
  // A new run span in the same trace (run_trace.h).
  if (run.record().has_trace()) RenewRunSpan(*run.MutableRecord().mutable_trace());
  // Started here, whatever an earlier scheduler left undone.
  run.MutableRecord().set_start_pending(false);
  // The whole timeout again, from now (decision 190); Activate arms it.
  if (v1::Run& view = *run.MutableRecord().mutable_run(); view.has_deadline()) {
    StartRunDeadline(*view.mutable_deadline(), batch_->now_ms());
  }
  (*driver)->Resume(run, batch_->now_ms());
  ResumeResult result;
  result.run_id = run_id;
  for (const store::PhaseRecord& phase : run.record().phases()) {
    if (phase.reused()) result.reused_phases.push_back(phase.status().phase_id());
  }
  run.EmitFirst(RunStartedEvent(result.reused_phases));
  Activate(std::move(state), *std::move(driver), *std::move(spec));
  return result;
}

void RunManager::AdvanceTouched() {
  for (const std::string& run_id : batch_->touched()) {
    ActiveRun* active = active_.Find(run_id);
    if (active != nullptr && !active->awaiting_start) {
      active->driver->Advance(*active->state, batch_->now_ms());
    }
  }
}

}  // namespace taskboard::engine
