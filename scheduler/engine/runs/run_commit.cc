#include "scheduler/engine/runs/run_commit.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "common/log/log.h"
#include "scheduler/engine/runs/event_size.h"
#include "scheduler/engine/runs/tasks_created.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {

CommittedRuns CommitTouchedRuns(ActiveRuns& runs, LoopBatch& loop_batch, int64_t max_event_bytes,
                                EngineMetrics* metrics, CommitObserver& observer) {
  CommittedRuns committed;
  store::WriteBatch& batch = loop_batch.writes();
  google::protobuf::Timestamp ts = ToTimestamp(loop_batch.now_ms());
  for (const std::string& run_id : loop_batch.touched()) {
    ActiveRun* active = runs.Find(run_id);
    if (active == nullptr) continue;
    RunState& run = *active->state;
    if (!run.HasChanges()) {
      // Read, not changed (a recovered run's first look at its tasks).
      run.Freeze();
      continue;
    }
    RunState::Changes changes = run.TakeChanges();
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
      if (IsApprovalTask(*task)) observer.ApprovalTaskCommitted(*active, *task);
    }
    // Key order (run_key_prefix.h); added tasks are announced in the same
    // order, GetRun's.
    std::sort(changed.begin(), changed.end(), [](const auto& a, const auto& b) {
      return store::keys::TaskKeyLess(a.first->task().task_id(), b.first->task().task_id());
    });
    TasksCreatedEvents created(run_id, max_event_bytes);
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
      observer.TaskRemoved(run_id, task_id);
    }
    for (v1::RunEvent& event : finish) events.push_back(std::move(event));
    for (v1::RunEvent& event : events) {
      int64_t seq = run.NextSeq();
      event.set_seq(seq);
      event.set_run_id(run_id);
      *event.mutable_ts() = ts;
      FitEventToLimit(event, max_event_bytes);
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
    if (!events.empty()) committed.published.emplace_back(run_id, std::move(events));
    if (IsTerminal(record.run().status())) {
      committed.finished.push_back(run_id);
      // Approvals that end with their run, without a decision.
      observer.RunEnded(run_id);
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
      if (metrics != nullptr) metrics->RunFinished(record.run().kind(), record.run().status());
    }
    // The tasks this batch read or changed that now wait or are over go
    // back to their serialized form (RunState::TaskSlot).
    run.Freeze();
  }
  return committed;
}

}  // namespace taskboard::engine
