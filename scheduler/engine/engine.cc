#include "scheduler/engine/engine.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/log/log.h"
#include "scheduler/engine/run_storage/run_state_calls.h"
#include "scheduler/engine/runs/run_commit.h"
#include "scheduler/engine/runs/run_recovery.h"
#include "scheduler/engine/state/approval_task.h"

namespace taskboard::engine {

absl::StatusOr<std::unique_ptr<Engine>> Engine::Create(EngineOptions options) {
  if (options.store == nullptr) return absl::InvalidArgumentError("the engine needs a store");
  std::unique_ptr<Engine> engine(new Engine(std::move(options)));
  absl::Status recovered = engine->Recover();
  if (!recovered.ok()) return recovered;
  if (absl::Status usage = engine->llm_.LoadUsage(); !usage.ok()) return usage;
  return engine;
}

namespace {

EngineOptions WithStore(EngineOptions options, store::Store* store) {
  options.store = store;
  return options;
}

CommitPipeline::OnWritten CountCommits(EngineMetrics* metrics) {
  if (metrics == nullptr) return nullptr;
  return [metrics](int64_t bytes, absl::Duration took) { metrics->StoreCommitted(bytes, took); };
}

}  // namespace

Engine::Engine(EngineOptions options)
    : store_(options.store),
      acked_(options.replication_gate != nullptr ? std::make_unique<AckedStore>(options.store)
                                                 : nullptr),
      pipeline_(options.store, CountCommits(options.metrics), /*max_in_flight=*/2,
                options.replication_gate, options.max_unacked_batches, acked_.get(),
                options.replication_released),
      loop_store_(options.store, &pipeline_),
      options_(WithStore(std::move(options), &loop_store_)),
      runs_({options_.store,
             options_.limits,
             options_.default_agent,
             {options_.retention_ms, options_.retention_keys_per_batch},
             options_.metrics, options_.tracer},
            &batch_, &timers_, &workers_, &tool_calls_),
      workers_({options_.store, options_.scheduler_id, options_.lease_timeout_ms,
                options_.heartbeat_interval_ms, options_.max_infra_attempts, options_.retry_backoff,
                options_.max_output_bytes, options_.metrics},
               &batch_, &timers_, &runs_.active()),
      tool_calls_({options_.store, options_.cache_limits, options_.ledger_cache_bytes,
                   options_.limits.max_tool_result_bytes, options_.limits.max_interpolated_bytes,
                   options_.lease_timeout_ms, options_.policy_service, options_.metrics,
                   options_.tool_call_hold_ms},
                  &batch_, &runs_.active(), &workers_, this),
      llm_({options_.store, &store(), options_.llm_limits, options_.llm_metrics}, &batch_,
           &runs_.active(), &runs_.retention(), &workers_.leases(), &workers_.streams(), &workers_),
      approvals_({options_.store, options_.limits, options_.approval_limits,
                  options_.approval_metrics, options_.approval_notifier},
                 &batch_, &timers_, &runs_.active()),
      schedules_({options_.store, options_.schedule_runs, options_.schedule_metrics,
                  options_.schedules_max_per_tenant},
                 &batch_, &runs_, &workers_.streams().registry()),
      triggers_({options_.store, options_.trigger_runs, options_.trigger_metrics,
                 options_.triggers_max_per_tenant, options_.triggers_max_runs_per_event,
                 options_.triggers_tenant_per_minute, options_.triggers_tenant_burst},
                &batch_, &runs_, &workers_.streams().registry()),
      run_storage_(options_.store, options_.run_storage_limits),
      traces_(options_.tracer) {
  if (options_.clock == nullptr) options_.clock = &system_clock_;
  workers_.AddListener(&tool_calls_);
  workers_.AddListener(&llm_);
  workers_.SetPriorWork(&tool_calls_.prior_work());
  if (options_.tracer != nullptr && options_.tracer->enabled()) {
    workers_.dispatcher().SetPriorWorkTracer(&traces_);
  }
  workers_.dispatcher().SetTraceContentPolicy(&llm_);
  workers_.Start(options_.clock, options_.scheduling_timeout_ms);
}

Engine::~Engine() { Stop(); }

void Engine::Start() {
  absl::MutexLock lock(&mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void Engine::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
  // What the last batches promised (replies, acks) is written and sent;
  // with a gate, once the followers hold it, and never if they do not.
  if (options_.replication_gate == nullptr) {
    pipeline_.Drain();
  } else if (!pipeline_.DrainUntil(absl::Now() + kStopReleaseWait)) {
    const size_t dropped = pipeline_.Abandon();
    log::Warn("stopping without the followers' acks: dropped what they did not acknowledge")
        .With("effects_dropped", static_cast<int64_t>(dropped));
  }
  // The gate belongs to the replica's role, which may go before the engine.
  pipeline_.StopReleasing();
  // The loop starts every accepted run before it ends, so no read should
  // be waiting; one that is must still be answered.
  runs_.starting().TasksCreated(nullptr);
}

size_t Engine::AbandonUnreleased() { return pipeline_.Abandon(); }

absl::Status Engine::AwaitReplicated(absl::Time deadline) {
  ReplicationGate* gate = options_.replication_gate;
  if (gate == nullptr) return absl::OkStatus();
  // The store as of the caller's write, before the index that covers it
  // (acked_store.h): once released, reads from other threads show it, so
  // the caller's reply is never ahead of GetFlow.
  std::shared_ptr<store::Store> snapshot = store_->ReadSnapshot();
  const uint64_t index = gate->WrittenIndex();
  while (!gate->AwaitReleasable(index, std::min(deadline, absl::Now() + absl::Seconds(1)))) {
    if (absl::Now() >= deadline) {
      return absl::UnavailableError(
          "written on the leader, but its in-sync followers did not acknowledge it before the "
          "call's deadline: it may be missing after a failover; read it back or save it again");
    }
  }
  acked_->Publish(std::move(snapshot), index);
  return absl::OkStatus();
}

void Engine::RefreshReads() {
  // Not released yet: the view stays at what was, which is what it must show.
  if (options_.replication_gate != nullptr) (void)AwaitReplicated(absl::Now());
}

void Engine::Post(std::function<void()> event) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(event));
  queued_ms_.push_back(options_.clock->NowMs());
  if (queue_.size() == 1) wake_.Signal();
}

EngineStats Engine::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void Engine::Submit(SubmitRequest request, std::function<void(absl::StatusOr<SubmitResult>)> done) {
  auto shared = std::make_shared<SubmitRequest>(std::move(request));
  Post([this, shared, done = std::move(done)]() mutable {
    runs_.Submit(*shared, workers_.streams().registry(), done);
  });
}

void Engine::Cancel(std::string run_id, std::string reason,
                    std::function<void(absl::StatusOr<v1::RunStatus>)> done) {
  Post([this, run_id = std::move(run_id), reason = std::move(reason),
        done = std::move(done)]() mutable { runs_.Cancel(run_id, reason, done); });
}

void Engine::Resume(std::string run_id, std::function<void(absl::StatusOr<ResumeResult>)> done) {
  Resume(std::move(run_id), ResumeBudget{}, std::move(done));
}

void Engine::Resume(std::string run_id, ResumeBudget budget,
                    std::function<void(absl::StatusOr<ResumeResult>)> done) {
  Post([this, run_id = std::move(run_id), budget, done = std::move(done)]() mutable {
    runs_.Resume(run_id, budget, done);
  });
}

void Engine::CloseStreams(std::string reason) {
  Post([this, reason = std::move(reason)] {
    // An effect, so it stays in order after the batches before it (their
    // effects may still be in the commit pipeline), as when the loop ran
    // effects itself.
    batch_.AfterCommit([this, reason, channels = workers_.streams().Channels()] {
      for (const auto& channel : channels) channel->Close(reason);
      runs_.watch_hub().CloseAll(reason);
    });
  });
}

void Engine::WhenTasksCreated(const std::string& run_id, std::function<void()> then) {
  runs_.starting().WhenTasksCreated(run_id, std::move(then));
}

void Engine::CommitWrites(store::WriteBatch writes, std::function<void()> written) {
  Post([this, writes = std::move(writes), written = std::move(written)]() mutable {
    for (const store::WriteBatch::Op& op : writes.ops()) {
      if (op.value.has_value()) {
        batch_.writes().Put(op.column, op.key, *op.value);
      } else {
        batch_.writes().Delete(op.column, op.key);
      }
    }
    if (written) batch_.AfterCommit(std::move(written));
  });
}

void Engine::RunStateCall(std::string identity, v1::RunStateRequest request,
                          std::function<void(absl::StatusOr<v1::RunStateResponse>)> done) {
  Post([this, identity = std::move(identity), request = std::move(request),
        done = std::move(done)]() mutable {
    // Maps of finished runs leave memory once many are loaded; a later
    // call (a resumed run) reads them again, after this batch is written.
    constexpr size_t kMaxLoadedRuns = 1'024;
    if (run_storage_.loaded_runs() > kMaxLoadedRuns) {
      run_storage_.ForgetInactive(
          [this](const std::string& root) { return runs_.active().Find(root) != nullptr; });
    }
    absl::StatusOr<v1::RunStateResponse> answer = CallRunState(
        identity, request, workers_.leases(), runs_.active(), run_storage_, batch_.writes());
    batch_.AfterCommit([done = std::move(done), answer = std::move(answer)]() mutable {
      done(std::move(answer));
    });
  });
}

void Engine::ListWorkers(std::function<void(std::vector<v1::WorkerInfo>)> done) {
  Post([this, done = std::move(done)]() mutable {
    batch_.AfterCommit([done = std::move(done),
                        workers = workers_.streams().List(workers_.leases().table())]() mutable {
      done(std::move(workers));
    });
  });
}

void Engine::DrainWorker(std::string worker_id, int64_t grace_ms, std::string reason,
                         std::function<void(absl::StatusOr<v1::WorkerInfo>)> done) {
  Post([this, worker_id = std::move(worker_id), grace_ms, reason = std::move(reason),
        done = std::move(done)]() mutable {
    batch_.AfterCommit([done = std::move(done),
                        drained = workers_.streams().Drain(worker_id, grace_ms, reason,
                                                           workers_.leases().table())]() mutable {
      done(std::move(drained));
    });
  });
}

void Engine::SetLlmLimits(governance::LlmLimits limits) {
  Post([this, limits = std::move(limits)]() mutable { llm_.SetLimits(std::move(limits)); });
}

absl::StatusOr<std::vector<v1::UsageRow>> Engine::ReadUsage(const std::string& tenant,
                                                            const std::string& since_day) {
  return llm_.ReadUsage(tenant, since_day);
}

absl::StatusOr<std::vector<v1::TenantBudget>> Engine::ReadTenantBudgets(
    const std::optional<std::string>& tenant) {
  return llm_.ReadTenantBudgets(tenant, absl::FromUnixMillis(options_.clock->NowMs()));
}

void Engine::ListApprovals(std::optional<std::string> tenant,
                           std::function<void(std::vector<v1::PendingApproval>)> done) {
  Post([this, tenant = std::move(tenant), done = std::move(done)]() mutable {
    batch_.AfterCommit([done = std::move(done), pending = approvals_.List(tenant)]() mutable {
      done(std::move(pending));
    });
  });
}

void Engine::DecideApproval(std::string run_id, std::string step_id, ApprovalAnswer answer,
                            Approver who, std::function<void(absl::StatusOr<v1::Task>)> done) {
  Post([this, run_id = std::move(run_id), step_id = std::move(step_id), answer = std::move(answer),
        who = std::move(who), done = std::move(done)]() mutable {
    batch_.AfterCommit(
        [done = std::move(done), task = approvals_.Decide(run_id, step_id, answer, who)]() mutable {
          done(std::move(task));
        });
  });
}

void Engine::GetCacheStats(std::optional<std::string> tenant,
                           std::function<void(v1::GetCacheStatsResponse)> done) {
  Post([this, tenant = std::move(tenant), done = std::move(done)]() mutable {
    batch_.AfterCommit([done = std::move(done), stats = tool_calls_.CacheStats(tenant)]() mutable {
      done(std::move(stats));
    });
  });
}

uint64_t Engine::NewStreamId() { return next_stream_id_++; }

void Engine::WorkerHello(uint64_t stream_id, v1::Hello hello,
                         std::shared_ptr<dispatch::WorkerChannel> channel, std::string identity) {
  Post([this, stream_id, hello = std::move(hello), channel = std::move(channel),
        identity = std::move(identity)]() mutable {
    workers_.Hello(stream_id, hello, std::move(channel), identity);
  });
}

void Engine::WorkerMessage(uint64_t stream_id, v1::ConnectRequest message) {
  Post([this, stream_id, message = std::move(message)]() mutable {
    RouteWorkerMessage(stream_id, message);
  });
}

void Engine::WorkerDisconnected(uint64_t stream_id) {
  Post([this, stream_id] { workers_.Disconnected(stream_id); });
}

void Engine::RouteWorkerMessage(uint64_t stream_id, v1::ConnectRequest& message) {
  dispatch::ConnectedWorker* worker = workers_.streams().Heard(stream_id);
  if (worker == nullptr) return;  // no Hello yet, or already gone
  TaskOutcomes& outcomes = workers_.outcomes();
  switch (message.msg_case()) {
    case v1::ConnectRequest::kCredits:
      workers_.streams().OnCredits(*worker, message.credits());
      break;
    case v1::ConnectRequest::kTaskStarted:
      outcomes.OnStarted(message.task_started());
      break;
    case v1::ConnectRequest::kHeartbeat:
      workers_.leases().OnHeartbeat(stream_id, message.heartbeat());
      break;
    case v1::ConnectRequest::kOutputDelta:
      outcomes.OnOutputDelta(message.output_delta());
      break;
    case v1::ConnectRequest::kTaskResult:
      outcomes.OnResult(*worker, message.task_result());
      break;
    case v1::ConnectRequest::kTaskReturned:
      outcomes.OnReturned(*worker, message.task_returned());
      break;
    case v1::ConnectRequest::kDraining:
      workers_.streams().OnDraining(*worker, message.draining());
      break;
    case v1::ConnectRequest::kToolLookup:
      tool_calls_.OnLookup(*worker, message.tool_lookup());
      break;
    case v1::ConnectRequest::kObservation:
      tool_calls_.OnObservation(*worker, message.observation());
      break;
    case v1::ConnectRequest::kLlmGrantRequest:
      llm_.OnGrantRequest(stream_id, message.llm_grant_request());
      break;
    case v1::ConnectRequest::kLlmCallReport:
      llm_.OnCallReport(message.llm_call_report());
      break;
    case v1::ConnectRequest::kBatch:
      // In order, as if written one by one. The gateway refused nested
      // batches (common/stream_batch.h); one that got here is skipped.
      for (v1::ConnectRequest& inner : *message.mutable_batch()->mutable_messages()) {
        if (!inner.has_batch()) RouteWorkerMessage(stream_id, inner);
      }
      break;
    default:
      break;
  }
}

void Engine::Loop() {
  std::vector<std::function<void()>> batch;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      // Sleep until an event arrives or the next timer / lease sweep is due.
      int64_t now = options_.clock->NowMs();
      int64_t wake_at = now + 1000;
      if (std::optional<int64_t> due = timers_.NextDueMs()) wake_at = std::min(wake_at, *due);
      if (std::optional<int64_t> sweep = workers_.leases().NextSweepMs()) {
        wake_at = std::min(wake_at, *sweep);
      }
      // Model calls waiting for their model's limits to refill.
      if (llm_.NextWake() != absl::InfiniteFuture()) {
        wake_at = std::min(wake_at, absl::ToUnixMillis(llm_.NextWake()) + 1);
      }
      // A held tool call's hold ends.
      if (std::optional<int64_t> held = tool_calls_.NextHeldRelease()) {
        wake_at = std::min(wake_at, *held);
      }
      // The next schedule fire (or a look at runs its buffer waits for).
      wake_at = std::min(wake_at, schedules_.NextWakeMs());
      // A deletion goes on a slice at a time, between other work.
      if (runs_.retention().busy()) wake_at = std::min(wake_at, now + 10);
      const bool starting = runs_.starting().any_pending();
      if (queue_.empty() && !starting && !stopping_ && wake_at > now) {
        wake_.WaitWithTimeout(&mu_, absl::Milliseconds(wake_at - now));
      }
      if (stopping_ && queue_.empty() && !starting) return;
      size_t take = std::min(queue_.size(), options_.max_batch_events);
      batch.assign(std::make_move_iterator(queue_.begin()),
                   std::make_move_iterator(queue_.begin() + take));
      queue_.erase(queue_.begin(), queue_.begin() + take);
      queued_ms_.erase(queued_ms_.begin(), queued_ms_.begin() + take);
      backlog_since_ms_ = queued_ms_.empty() ? INT64_MAX : queued_ms_.front();
    }
    ProcessBatch(batch);
    batch.clear();
  }
}

void Engine::RunOnce() {
  std::vector<std::function<void()>> batch;
  {
    absl::MutexLock lock(&mu_);
    batch.swap(queue_);
    queued_ms_.clear();
    backlog_since_ms_ = INT64_MAX;
  }
  ProcessBatch(batch);
  // A run submitted in the batch starts in the next (StartLater).
  if (runs_.starting().any_pending()) {
    batch.clear();
    ProcessBatch(batch);
  }
  // A caller stepping the engine by hand sees the batch's effects done.
  pipeline_.Drain();
}

void Engine::ProcessBatch(std::vector<std::function<void()>>& batch) {
  batch_.Begin(options_.clock->NowMs());
  runs_.starting().StartPending();
  for (auto& event : batch) event();
  FireTimers();
  tool_calls_.ReleaseHeldCalls();
  schedules_.Tick();
  // The trigger records this batch's deliveries touched, once each.
  triggers_.Flush();
  if (workers_.leases().SweepDue(batch_.now_ms())) {
    tool_calls_.SweepCache();
    workers_.leases().ExpireDue(std::min(batch_.now_ms(), backlog_since_ms_));
  }
  runs_.AdvanceTouched();
  runs_.nested().Advance();
  QueueTouched();
  workers_.dispatcher().Dispatch();
  llm_.GrantDue();
  llm_.BillEndedRuns();
  runs_.retention().Sweep();
  loop_stats_.batches++;
  loop_stats_.events += static_cast<int64_t>(batch.size());
  Commit();
  UpdateGauges();
  loop_stats_.results = workers_.outcomes().results();
  loop_stats_.dispatched = workers_.dispatcher().dispatched();
  loop_stats_.ready_depth = static_cast<int64_t>(workers_.dispatcher().ready().TotalDepth());
  loop_stats_.workers = static_cast<int64_t>(workers_.streams().registry().size());
  absl::MutexLock lock(&mu_);
  stats_ = loop_stats_;
}

void Engine::FireTimers() {
  while (std::optional<Timer> due = timers_.PopDue(batch_.now_ms())) {
    const Timer& timer = *due;
    if (timer.kind == TimerKind::kRunDeadline) {
      runs_.OnDeadline(timer.run_id);
      continue;
    }
    if (timer.kind != TimerKind::kApprovalTimeout) {
      workers_.OnTimer(timer);
      continue;
    }
    ActiveRun* active = runs_.active().Find(timer.run_id);
    if (active == nullptr || active->state->FindTask(timer.task_id) == nullptr) continue;
    approvals_.OnTimeout(*active->state, timer.task_id);
  }
}

void Engine::QueueTouched() {
  for (const std::string& run_id : batch_.touched()) {
    if (ActiveRun* active = runs_.active().Find(run_id); active != nullptr) {
      QueueReadyTasks(*active->state, &active->state->changed_tasks());
    }
  }
}

void Engine::QueueReadyTasks(RunState& run, const RunState::TaskIds* task_ids) {
  // `id` is the task's id as the run keeps it, which the entry views.
  auto queue = [&](absl::string_view id, const store::TaskRecord& task) {
    if (WaitsForApproval(task)) return approvals_.ArmTimeout(run.run_id(), task);
    workers_.dispatcher().Queue(run, id, task);
  };
  if (task_ids == nullptr) {
    for (const auto& [id, task] : run.tasks()) queue(id, task);
    return;
  }
  for (const std::string& id : *task_ids) {
    const store::TaskRecord* task = run.FindTask(id);
    if (task != nullptr) queue(run.KeptTaskId(id), *task);
  }
}

void Engine::Commit() {
  CommittedRuns committed = CommitTouchedRuns(
      runs_.active(), batch_, options_.limits.max_event_bytes, options_.metrics, approvals_);
  batch_.ClearTouched();
  store::WriteBatch batch = batch_.TakeWrites();
  loop_stats_.commit_bytes += static_cast<int64_t>(batch.ByteSize());
  for (auto& [run_id, events] : committed.published) {
    auto shared = std::make_shared<const std::vector<v1::RunEvent>>(std::move(events));
    batch_.AfterCommit(
        [hub = &runs_.watch_hub(), run_id = run_id, shared] { hub->Publish(run_id, shared); });
    // The run's spans, from the same events once they are durable.
    const ActiveRun* active = runs_.active().Find(run_id);
    if (active != nullptr && traces_.Records(active->state->record().trace())) {
      batch_.AfterCommit([traces = &traces_, run = TracedRunOf(active->state->record()), shared] {
        traces->OnCommitted(run, *shared);
      });
    }
  }
  // With events waiting, the loop goes on with them while this batch is
  // written; its effects run after the write either way (commit_pipeline.h).
  bool more_work;
  {
    absl::MutexLock lock(&mu_);
    more_work = !queue_.empty() || runs_.starting().any_pending();
  }
  pipeline_.Commit(std::move(batch), batch_.TakeEffects(), more_work);
  for (const std::string& run_id : committed.finished) {
    tool_calls_.OnRunLeftMemory(run_id);
    runs_.active().Erase(run_id);
  }
}

absl::Status Engine::Recover() {
  // Wall time of the stages, for the log line at the end.
  const absl::Time started = absl::Now();
  batch_.Begin(options_.clock->NowMs());
  absl::StatusOr<RecoveredRuns> recovered =
      RunRecovery(&runs_, &batch_, options_.recovery_threads, [this](ActiveRun& active) {
        workers_.Rearm(active);
        QueueReadyTasks(*active.state, nullptr);
      }).Recover();
  if (!recovered.ok()) return recovered.status();
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
  if (recovered->quarantined) Commit();
  if (absl::Status linked = runs_.nested().RecoverLinks(); !linked.ok()) return linked;
  approvals_.Recover();
  // Cache entries come back too; expired ones are deleted by the first batch.
  if (absl::Status loaded = tool_calls_.LoadCache(runs_.active().size() > 0); !loaded.ok()) {
    return loaded;
  }
  // After the runs: a schedule's running runs are looked up among them.
  if (absl::Status loaded = schedules_.Load(); !loaded.ok()) return loaded;
  if (absl::Status loaded = triggers_.Load(); !loaded.ok()) return loaded;
  const absl::Time done = absl::Now();
  log::Info("recovered the active runs")
      .With("runs", runs_.active().size())
      .With("tasks", recovered->tasks)
      .With("scan_runs_ms", absl::ToInt64Milliseconds(recovered->scanned - started))
      .With("load_runs_ms", absl::ToInt64Milliseconds(recovered->loaded - recovered->scanned))
      .With("links_approvals_cache_ms", absl::ToInt64Milliseconds(done - recovered->loaded))
      .With("total_ms", absl::ToInt64Milliseconds(done - started));
  // Otherwise recovery writes nothing; the first batch advances these runs.
  return absl::OkStatus();
}

void Engine::UpdateGauges() {
  approvals_.UpdateGauges();
  EngineMetrics* metrics = options_.metrics;
  if (metrics == nullptr) return;
  std::vector<std::pair<std::string, int64_t>> depths;
  const dispatch::ReadyQueue& ready = workers_.dispatcher().ready();
  for (std::string& agent : ready.AgentsWithWork()) {
    int64_t depth = static_cast<int64_t>(ready.Depth(agent));
    depths.emplace_back(std::move(agent), depth);
  }
  std::optional<int64_t> oldest = ready.OldestReadyMs();
  metrics->UpdateQueues(
      depths, absl::Milliseconds(oldest ? std::max<int64_t>(0, batch_.now_ms() - *oldest) : 0));
  metrics->UpdateWorkers(static_cast<int64_t>(workers_.streams().registry().size()),
                         workers_.streams().registry().FreeSlots());
  metrics->UpdateCache(tool_calls_.cache().counters());
  const ObservationCache& ledger_cache = tool_calls_.ledgers().cache();
  metrics->UpdateLedgerCache(ledger_cache.hits(), ledger_cache.misses(), ledger_cache.bytes());
}

}  // namespace taskboard::engine
