#include "scheduler/engine/runs/starting_runs.h"

#include <utility>

#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {

void StartingRuns::StartLater(ActiveRun& run) {
  const std::string& run_id = run.state->run_id();
  run.awaiting_start = true;
  pending_.push_back(run_id);
  absl::MutexLock lock(&starting_mu_);
  starting_.try_emplace(run_id);
}

void StartingRuns::StartPending() {
  if (pending_.empty()) return;
  std::vector<std::string> started;
  started.swap(pending_);
  for (const std::string& run_id : started) {
    ActiveRun* active = runs_->Find(run_id);
    if (active == nullptr || !active->awaiting_start) continue;
    active->awaiting_start = false;
    RunState& run = *active->state;
    run.MutableRecord().set_start_pending(false);
    batch_->Touch(run_id);
    // Cancelled before it started (its parent ended in the batch that
    // submitted it, docs/semantics.md#nested-runs): it gets no tasks.
    if (IsTerminal(run.record().run().status())) continue;
    active->driver->Start(run, batch_->now_ms());
  }
  batch_->AfterCommit([this, started = std::move(started)] { TasksCreated(&started); });
}

void StartingRuns::WhenTasksCreated(const std::string& run_id, std::function<void()> then) {
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

void StartingRuns::TasksCreated(const std::vector<std::string>* run_ids) {
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

}  // namespace taskboard::engine
