#include "scheduler/engine/run_state.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "common/log/log.h"
#include "scheduler/engine/task_states.h"

namespace taskboard::engine {

RunState::RunState(store::RunRecord record) : record_(std::move(record)) {
  // A loaded run's map phases are written without their items from now on,
  // so the items go to their key at the phase's next rewrite (for a run
  // stored before items had a key, for the first time).
  for (int i = 0; i < record_.phases_size(); ++i) {
    if (record_.phases(i).items_size() > 0) MarkPhaseItems(i);
  }
}

RunState::~RunState() {
  if (ready_run_ != nullptr) ready_run_->ended = true;
}

const std::shared_ptr<dispatch::ReadyRun>& RunState::ready_run() {
  if (ready_run_ == nullptr) {
    ready_run_ = std::make_shared<dispatch::ReadyRun>();
    ready_run_->run_id = run_id();
    ready_run_->tenant = record_.tenant();
  }
  return ready_run_;
}

void RunState::MarkPhaseItems(int index) {
  // Only a map phase has items, and a key for them, to keep up to date: a
  // board's thousands of single-task phases write none.
  const store::PhaseRecord& phase = record_.phases(index);
  if (phase.status().type() != v1::PHASE_TYPE_MAP && phase.items_size() == 0) return;
  const size_t at = static_cast<size_t>(index);
  if (at >= items_changed_.size()) items_changed_.resize(at + 1, false);
  items_changed_[at] = true;
  MarkPhase(index);
}

store::RunRecord& RunState::MutableRecord() {
  run_changed_ = true;
  return record_;
}

store::PhaseRecord& RunState::MutablePhase(int index) {
  run_changed_ = true;
  MarkPhase(index);
  return *record_.mutable_phases(index);
}

void RunState::MarkPhase(int index) {
  const size_t at = static_cast<size_t>(index);
  if (at >= phase_marked_.size()) phase_marked_.resize(at + 1, false);
  if (phase_marked_[at]) return;
  phase_marked_[at] = true;
  changed_phases_.push_back(index);
}

google::protobuf::RepeatedPtrField<store::PhaseRecord>& RunState::MutablePhases() {
  run_changed_ = true;
  // Resolved in TakeChanges: the caller may add phases through the field (a
  // driver adds its phases one at a time) or replace the ones there are,
  // items and all (a resume does); phases it adds have no items yet.
  if (!all_phases_changed_) phases_before_replace_ = record_.phases_size();
  all_phases_changed_ = true;
  return *record_.mutable_phases();
}

std::string RunState::SerializeWithoutPhases() {
  // Swapping the phases out and back is O(1); copying the record is not.
  google::protobuf::RepeatedPtrField<store::PhaseRecord> phases;
  phases.Swap(record_.mutable_phases());
  std::string bytes = record_.SerializeAsString();
  phases.Swap(record_.mutable_phases());
  return bytes;
}

std::string RunState::SerializePhase(int index, std::optional<std::string>* items) {
  store::PhaseRecord& phase = *record_.mutable_phases(index);
  // The items are swapped out and back, which is O(1); copying them is not.
  store::PhaseItems held;
  held.mutable_items()->Swap(phase.mutable_items());
  std::string bytes = phase.SerializeAsString();
  const size_t at = static_cast<size_t>(index);
  if (at < items_changed_.size() && items_changed_[at]) {
    items_changed_[at] = false;
    *items = held.SerializeAsString();
  }
  held.mutable_items()->Swap(phase.mutable_items());
  return bytes;
}

const store::TaskRecord* RunState::FindTask(absl::string_view task_id) const {
  auto it = task_index_.find(task_id);
  return it == task_index_.end() ? nullptr : it->second;
}

absl::string_view RunState::KeptTaskId(absl::string_view task_id) const {
  auto it = task_index_.find(task_id);
  return it == task_index_.end() ? absl::string_view() : it->first;
}

store::TaskRecord& RunState::MutableTask(absl::string_view task_id) {
  auto it = task_index_.find(task_id);
  if (it == task_index_.end()) {
    log::Fatal("internal error: no such task in the run")
        .With("run_id", run_id())
        .With("task_id", task_id);
    std::abort();
  }
  changed_tasks_.emplace(it->first);
  return *it->second;
}

store::TaskRecord& RunState::Slot(const std::string& id) {
  auto [it, inserted] = tasks_.try_emplace(id);
  if (inserted) {
    task_index_[it->first] = &it->second;
    created_.insert(it->first);
  }
  return it->second;
}

store::TaskRecord& RunState::PutTask(store::TaskRecord task) {
  std::string id = task.task().task_id();
  removed_tasks_.erase(id);
  changed_tasks_.insert(id);
  store::TaskRecord& slot = Slot(id);
  slot = std::move(task);
  return slot;
}

void RunState::RemoveTask(absl::string_view task_id) {
  auto it = tasks_.find(std::string(task_id));
  if (it == tasks_.end()) return;
  std::string id = it->first;
  finished_.erase(it->first);
  created_.erase(it->first);
  task_index_.erase(it->first);
  removed_nodes_.push_back(tasks_.extract(it));
  removed_nodes_.back().mapped() = store::TaskRecord();
  changed_tasks_.erase(id);
  removed_tasks_.insert(id);
}

void RunState::LoadTask(store::TaskRecord task) {
  // Hinted at the end: LoadTasks sorts a run's tasks so that each lands
  // there without a search from the map's root (a wrong hint only costs
  // the search).
  auto it = tasks_.try_emplace(tasks_.end(), task.task().task_id());
  it->second = std::move(task);
  task_index_[it->first] = &it->second;
  if (IsTerminal(it->second.task().state())) finished_.insert(it->first);
}

void RunState::LoadTasks(std::vector<store::TaskRecord> tasks) {
  // The store orders task keys by id length first (keys.h), the task map by
  // id: sorted once here, each task goes at the end of the map (recovery
  // loads a million of them).
  std::vector<size_t> order(tasks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return tasks[a].task().task_id() < tasks[b].task().task_id();
  });
  task_index_.reserve(task_index_.size() + tasks.size());
  for (size_t i : order) LoadTask(std::move(tasks[i]));
}

void RunState::CountTasks() {
  for (const std::string& id : changed_tasks_) {
    auto it = task_index_.find(id);
    if (it == task_index_.end()) continue;
    if (IsTerminal(it->second->task().state())) {
      finished_.insert(it->first);
    } else {
      finished_.erase(it->first);
    }
  }
  const int32_t total = static_cast<int32_t>(tasks_.size());
  const int32_t done = static_cast<int32_t>(finished_.size());
  if (record_.run().tasks_total() != total || record_.run().tasks_done() != done) {
    v1::Run& run = *MutableRecord().mutable_run();
    run.set_tasks_total(total);
    run.set_tasks_done(done);
  }
}

int64_t RunState::NextSeq() {
  int64_t seq = std::max<int64_t>(record_.next_seq(), 1);
  record_.set_next_seq(seq + 1);
  record_.mutable_run()->set_last_seq(seq);
  return seq;
}

void RunState::Emit(v1::RunEvent event) { events_.push_back(std::move(event)); }

void RunState::EmitFirst(v1::RunEvent event) { events_.insert(events_.begin(), std::move(event)); }

bool RunState::HasChanges() const {
  return run_changed_ || all_phases_changed_ || !changed_phases_.empty() ||
         !changed_tasks_.empty() || !removed_tasks_.empty() || !events_.empty();
}

RunState::Changes RunState::TakeChanges() {
  if (!changed_tasks_.empty() || !removed_tasks_.empty()) CountTasks();
  Changes changes;
  changes.run = run_changed_;
  if (all_phases_changed_) {
    for (int i = 0; i < phases_before_replace_; ++i) MarkPhaseItems(i);
    for (int i = 0; i < record_.phases_size(); ++i) MarkPhase(i);
    all_phases_changed_ = false;
  }
  std::sort(changed_phases_.begin(), changed_phases_.end());
  for (int index : changed_phases_) phase_marked_[static_cast<size_t>(index)] = false;
  changes.phases = std::move(changed_phases_);
  changed_phases_.clear();
  changes.tasks.assign(changed_tasks_.begin(), changed_tasks_.end());
  changes.created.reserve(changes.tasks.size());
  for (const std::string& id : changes.tasks) changes.created.push_back(created_.contains(id));
  created_.clear();
  changes.removed.assign(removed_tasks_.begin(), removed_tasks_.end());
  changes.events = std::move(events_);
  run_changed_ = false;
  changed_tasks_.clear();
  removed_tasks_.clear();
  events_.clear();
  return changes;
}

}  // namespace taskboard::engine
