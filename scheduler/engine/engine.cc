#include "scheduler/engine/engine.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/log/log.h"
#include "scheduler/engine/event_size.h"
#include "scheduler/engine/task_states.h"
#include "scheduler/engine/tasks_created.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

absl::StatusOr<std::unique_ptr<Engine>> Engine::Create(EngineOptions options) {
  if (options.store == nullptr) return absl::InvalidArgumentError("the engine needs a store");
  std::unique_ptr<Engine> engine(new Engine(std::move(options)));
  absl::Status recovered = engine->Recover();
  if (!recovered.ok()) return recovered;
  if (absl::Status usage = engine->LoadLlmUsage(); !usage.ok()) return usage;
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
      pipeline_(options.store, CountCommits(options.metrics)),
      loop_store_(options.store, &pipeline_),
      options_(WithStore(std::move(options), &loop_store_)),
      ledgers_(options_.store, options_.ledger_cache_bytes),
      governor_(options_.llm_limits),
      approval_watch_(options_.approval_metrics) {
  if (options_.clock == nullptr) options_.clock = &system_clock_;
  cache_.set_limits(options_.cache_limits);
  // Every agent counts as last offered now: tasks recovered from the store
  // get the whole scheduling timeout for workers to reconnect.
  scheduling_ = SchedulingDeadlines(options_.scheduling_timeout_ms, options_.clock->NowMs());
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
  // What the last batches promised (replies, acks) is written and sent.
  pipeline_.Drain();
  // The loop starts every accepted run before it ends, so no read should
  // be waiting; one that is must still be answered.
  TasksCreated(nullptr);
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
  Post([this, shared, done = std::move(done)]() mutable { DoSubmit(*shared, done); });
}

void Engine::Cancel(std::string run_id, std::string reason,
                    std::function<void(absl::StatusOr<v1::RunStatus>)> done) {
  Post([this, run_id = std::move(run_id), reason = std::move(reason),
        done = std::move(done)]() mutable { DoCancel(run_id, reason, done); });
}

void Engine::Resume(std::string run_id, std::function<void(absl::StatusOr<ResumeResult>)> done) {
  Resume(std::move(run_id), ResumeBudget{}, std::move(done));
}

void Engine::Resume(std::string run_id, ResumeBudget budget,
                    std::function<void(absl::StatusOr<ResumeResult>)> done) {
  Post([this, run_id = std::move(run_id), budget, done = std::move(done)]() mutable {
    DoResume(run_id, budget, done);
  });
}

void Engine::CloseStreams(std::string reason) {
  Post([this, reason = std::move(reason)] {
    // An effect, so it stays in order after the batches before it (their
    // effects may still be in the commit pipeline), as when the loop ran
    // effects itself.
    std::vector<std::shared_ptr<dispatch::WorkerChannel>> channels;
    for (const auto& [stream_id, worker] : workers_.all()) channels.push_back(worker.channel);
    batch_.AfterCommit([this, reason, channels = std::move(channels)] {
      for (const auto& channel : channels) channel->Close(reason);
      watch_hub_.CloseAll(reason);
    });
  });
}

uint64_t Engine::NewStreamId() { return next_stream_id_++; }

void Engine::WorkerHello(uint64_t stream_id, v1::Hello hello,
                         std::shared_ptr<dispatch::WorkerChannel> channel, std::string identity) {
  Post(
      [this, stream_id, hello = std::move(hello), channel = std::move(channel),
       identity = std::move(identity)]() mutable { DoHello(stream_id, hello, channel, identity); });
}

void Engine::WorkerMessage(uint64_t stream_id, v1::ConnectRequest message) {
  Post([this, stream_id, message = std::move(message)]() mutable {
    DoWorkerMessage(stream_id, message);
  });
}

void Engine::WorkerDisconnected(uint64_t stream_id) {
  Post([this, stream_id] { DoDisconnect(stream_id); });
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
      if (leases_.size() > 0) wake_at = std::min(wake_at, last_lease_sweep_ms_ + 200);
      // Model calls waiting for their model's limits to refill.
      if (governor_.NextWake() != absl::InfiniteFuture()) {
        wake_at = std::min(wake_at, absl::ToUnixMillis(governor_.NextWake()) + 1);
      }
      // A deletion goes on a slice at a time, between other work.
      if (deletion_.has_value()) wake_at = std::min(wake_at, now + 10);
      if (queue_.empty() && pending_starts_.empty() && !stopping_ && wake_at > now) {
        wake_.WaitWithTimeout(&mu_, absl::Milliseconds(wake_at - now));
      }
      if (stopping_ && queue_.empty() && pending_starts_.empty()) return;
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
  if (!pending_starts_.empty()) {
    batch.clear();
    ProcessBatch(batch);
  }
  // A caller stepping the engine by hand sees the batch's effects done.
  pipeline_.Drain();
}

void Engine::ProcessBatch(std::vector<std::function<void()>>& batch) {
  batch_.Begin(options_.clock->NowMs());
  StartPendingRuns();
  for (auto& event : batch) event();
  FireTimers();
  ExpireLeases();
  for (const std::string& run_id : batch_.touched()) {
    auto it = runs_.find(run_id);
    if (it != runs_.end() && !it->second.awaiting_start) {
      it->second.driver->Advance(*it->second.state, batch_.now_ms());
    }
  }
  AdvanceNested();
  for (const std::string& run_id : batch_.touched()) {
    auto it = runs_.find(run_id);
    if (it != runs_.end()) {
      QueueReadyTasks(*it->second.state, &it->second.state->changed_tasks());
    }
  }
  Dispatch();
  GrantLlmCalls();
  BillEndedRuns();
  SweepRetention();
  loop_stats_.batches++;
  loop_stats_.events += static_cast<int64_t>(batch.size());
  Commit();
  UpdateGauges();
  loop_stats_.ready_depth = static_cast<int64_t>(ready_.TotalDepth());
  loop_stats_.workers = static_cast<int64_t>(workers_.size());
  absl::MutexLock lock(&mu_);
  stats_ = loop_stats_;
}

void Engine::Commit() {
  store::WriteBatch batch = batch_.TakeWrites();
  std::vector<std::pair<std::string, std::vector<v1::RunEvent>>> published;
  std::vector<std::string> finished;
  std::vector<ApprovalEvent> approval_events;
  google::protobuf::Timestamp ts = ToTimestamp(batch_.now_ms());
  for (const std::string& run_id : batch_.touched()) {
    auto it = runs_.find(run_id);
    if (it == runs_.end()) continue;
    RunState& run = *it->second.state;
    if (!run.HasChanges()) {
      // Read, not changed (a recovered run's first look at its tasks).
      run.Freeze();
      continue;
    }
    RunState::Changes changes = run.TakeChanges();
    // What the run emitted (run_started, phase changes...), then the tasks
    // added in tasks_created events, then one task_change per other changed
    // task, then run_finished: a watcher sees the final task states before
    // the run's end.
    std::vector<v1::RunEvent> events;
    std::vector<v1::RunEvent> finish;
    for (v1::RunEvent& event : changes.events) {
      (event.has_run_finished() ? finish : events).push_back(std::move(event));
    }
    const size_t emitted = events.size();
    // Each changed task with whether it was added.
    std::vector<std::pair<const store::TaskRecord*, bool>> changed;
    changed.reserve(changes.tasks.size());
    for (size_t i = 0; i < changes.tasks.size(); ++i) {
      const store::TaskRecord* task = run.FindTask(changes.tasks[i]);
      changed.emplace_back(task, changes.created[i]);
      if (!changes.created[i]) {
        v1::RunEvent event;
        *event.mutable_task_change()->mutable_task() = task->task();
        events.push_back(std::move(event));
      }
      ObserveApproval(run, *task, approval_events);
    }
    // Records go in key order, not id order, so RocksDB inserts each next
    // to the previous one of the run (run_key_prefix.h): a submit writes
    // 10,000 of them at once. Added tasks are announced in the same order,
    // GetRun's.
    std::sort(changed.begin(), changed.end(), [](const auto& a, const auto& b) {
      return store::keys::TaskKeyLess(a.first->task().task_id(), b.first->task().task_id());
    });
    TasksCreatedEvents created(run_id, options_.limits.max_event_bytes);
    for (const auto& [task, added] : changed) {
      std::string bytes = task->SerializeAsString();
      run.Committed(task->task().task_id(), bytes);
      if (added) created.Add(task->task());
      batch.PutOwned(store::Column::kTasks, store::keys::Task(run_id, task->task().task_id()),
                     std::move(bytes));
    }
    std::vector<v1::RunEvent> announced;
    created.AppendTo(announced);
    events.insert(events.begin() + static_cast<std::ptrdiff_t>(emitted),
                  std::make_move_iterator(announced.begin()),
                  std::make_move_iterator(announced.end()));
    for (const std::string& task_id : changes.removed) {
      batch.Delete(store::Column::kTasks, store::keys::Task(run_id, task_id));
      approval_watch_.Forget(run_id, task_id);
    }
    for (v1::RunEvent& event : finish) events.push_back(std::move(event));
    for (v1::RunEvent& event : events) {
      int64_t seq = run.NextSeq();
      event.set_seq(seq);
      event.set_run_id(run_id);
      *event.mutable_ts() = ts;
      FitEventToLimit(event, options_.limits.max_event_bytes);
      batch.PutOwned(store::Column::kEvents, store::keys::Event(run_id, static_cast<uint64_t>(seq)),
                     event.SerializeAsString());
    }
    for (int index : changes.phases) {
      std::optional<std::string> items;
      batch.PutOwned(store::Column::kMeta,
                     store::keys::RunPhase(run_id, static_cast<uint64_t>(index)),
                     run.SerializePhase(index, &items));
      if (items.has_value()) {
        batch.PutOwned(store::Column::kMeta,
                       store::keys::RunPhaseItems(run_id, static_cast<uint64_t>(index)),
                       *std::move(items));
      }
    }
    batch.PutOwned(store::Column::kRuns, store::keys::Run(run_id), run.SerializeWithoutPhases());
    const store::RunRecord& record = run.record();
    if (!events.empty()) published.emplace_back(run_id, std::move(events));
    if (IsTerminal(record.run().status())) {
      finished.push_back(run_id);
      // Approvals that end with their run, without a decision.
      approval_watch_.ForgetRun(run_id);
      // Root runs, by age, for --retention (children go with their root).
      if (record.run().parent_run_id().empty()) {
        batch.Put(store::Column::kMeta,
                  store::keys::FinishedRun(ToUnixMs(record.run().finished_at()), run_id), "");
      }
      log::Info("run finished")
          .With("run_id", run_id)
          .With("kind", v1::FlowKind_Name(record.run().kind()))
          .With("status", v1::RunStatus_Name(record.run().status()))
          .WithNonEmpty("error", record.run().error());
      if (options_.metrics != nullptr) {
        options_.metrics->RunFinished(record.run().kind(), record.run().status());
      }
    }
    // The tasks this batch read or changed that now wait or are over go
    // back to their serialized form (RunState::TaskSlot).
    run.Freeze();
  }
  batch_.ClearTouched();
  loop_stats_.commit_bytes += static_cast<int64_t>(batch.ByteSize());
  NotifyApprovals(std::move(approval_events));
  for (auto& [run_id, events] : published) {
    batch_.AfterCommit([this, run_id = run_id,
                        events = std::make_shared<const std::vector<v1::RunEvent>>(
                            std::move(events))] { watch_hub_.Publish(run_id, events); });
  }
  // With events waiting, the loop goes on with them while this batch is
  // written; its effects run after the write either way (commit_pipeline.h).
  bool more_work;
  {
    absl::MutexLock lock(&mu_);
    more_work = !queue_.empty() || !pending_starts_.empty();
  }
  pipeline_.Commit(std::move(batch), batch_.TakeEffects(), more_work);
  for (const std::string& run_id : finished) {
    // A finished run's request keeps its ledger in the store; memory holds
    // only what active runs select from (a resume reloads it).
    ledgers_.Forget(run_id);
    runs_.erase(run_id);
  }
}

void Engine::UpdateGauges() {
  approval_watch_.UpdateGauges(batch_.now_ms());
  EngineMetrics* metrics = options_.metrics;
  if (metrics == nullptr) return;
  std::vector<std::pair<std::string, int64_t>> depths;
  for (std::string& agent : ready_.AgentsWithWork()) {
    int64_t depth = static_cast<int64_t>(ready_.Depth(agent));
    depths.emplace_back(std::move(agent), depth);
  }
  std::optional<int64_t> oldest = ready_.OldestReadyMs();
  metrics->UpdateQueues(
      depths, absl::Milliseconds(oldest ? std::max<int64_t>(0, batch_.now_ms() - *oldest) : 0));
  metrics->UpdateWorkers(static_cast<int64_t>(workers_.size()), workers_.FreeSlots());
  metrics->UpdateCache(cache_.counters());
  const ObservationCache& ledger_cache = ledgers_.cache();
  metrics->UpdateLedgerCache(ledger_cache.hits(), ledger_cache.misses(), ledger_cache.bytes());
}

void Engine::CountAttempt(const store::TaskRecord& task, AttemptOutcome outcome) {
  if (options_.metrics == nullptr) return;
  TaskEnd end = outcome == AttemptOutcome::kCompleted  ? TaskEnd::kCompleted
                : outcome == AttemptOutcome::kRetrying ? TaskEnd::kRetried
                                                       : TaskEnd::kFailed;
  options_.metrics->TaskEnded(
      task.task().agent(), end,
      absl::Milliseconds(std::max<int64_t>(0, batch_.now_ms() - task.dispatched_unix_ms())));
}

}  // namespace taskboard::engine
