#include "scheduler/engine/state/run_state.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "common/log/log.h"
#include "scheduler/engine/state/task_states.h"

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

namespace {

// A task the engine is not working on: it waits for its deps, a worker or
// its retry time, or it is over. Kept serialized between batches.
bool Waits(v1::TaskState state) {
  return state == v1::TASK_STATE_PENDING || state == v1::TASK_STATE_READY ||
         state == v1::TASK_STATE_RETRYING || IsTerminal(state);
}

}  // namespace

const store::TaskRecord& RunState::Parsed(const TaskSlot& slot) const {
  if (slot.record == nullptr) {
    slot.record = std::make_unique<store::TaskRecord>();
    if (!slot.record->ParseFromString(slot.bytes)) {
      // The bytes are the engine's own serialization of the record.
      log::Fatal("internal error: a task kept serialized does not parse")
          .With("run_id", run_id())
          .With("bytes", slot.bytes.size());
      std::abort();
    }
    parsed_.push_back(&slot);
  }
  return *slot.record;
}

store::TaskRecord& RunState::MutableParsed(TaskSlot& slot) {
  Parsed(slot);
  // About to change: the bytes no longer say what the record does.
  std::string().swap(slot.bytes);
  return *slot.record;
}

const store::TaskRecord* RunState::FindTask(absl::string_view task_id) const {
  auto it = task_index_.find(task_id);
  return it == task_index_.end() ? nullptr : &Parsed(*it->second);
}

absl::string_view RunState::KeptTaskId(absl::string_view task_id) const {
  auto it = task_index_.find(task_id);
  return it == task_index_.end() ? absl::string_view() : it->first;
}

std::vector<absl::string_view> RunState::TaskIdsWithPrefix(const std::string& prefix) const {
  std::vector<absl::string_view> ids;
  for (auto it = tasks_.lower_bound(prefix);
       it != tasks_.end() && absl::StartsWith(it->first, prefix); ++it) {
    ids.push_back(it->first);
  }
  return ids;
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
  return MutableParsed(*it->second);
}

RunState::TaskSlot& RunState::Slot(const std::string& id) {
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
  TaskSlot& slot = Slot(id);
  std::string().swap(slot.bytes);
  if (slot.record == nullptr) {
    // Replaced whole: no need to parse what was there.
    slot.record = std::make_unique<store::TaskRecord>(std::move(task));
    parsed_.push_back(&slot);
  } else {
    // In place: a record handed out before stays valid.
    *slot.record = std::move(task);
  }
  return *slot.record;
}

void RunState::RemoveTask(absl::string_view task_id) {
  auto it = tasks_.find(std::string(task_id));
  if (it == tasks_.end()) return;
  std::string id = it->first;
  finished_.erase(it->first);
  created_.erase(it->first);
  task_index_.erase(it->first);
  removed_nodes_.push_back(tasks_.extract(it));
  // Emptied (Freeze skips it); the node stays for the id's sake.
  TaskSlot& removed = removed_nodes_.back().mapped();
  removed.record.reset();
  std::string().swap(removed.bytes);
  changed_tasks_.erase(id);
  removed_tasks_.insert(id);
}

void RunState::LoadTask(StoredTask task) {
  // Hinted at the end: LoadTasks sorts a run's tasks so that each lands
  // there without a search from the map's root (a wrong hint only costs
  // the search).
  auto it = tasks_.try_emplace(tasks_.end(), task.record.task().task_id());
  TaskSlot& slot = it->second;
  if (IsTerminal(task.record.task().state())) finished_.insert(it->first);
  slot.record = std::make_unique<store::TaskRecord>(std::move(task.record));
  slot.bytes = std::move(task.bytes);
  parsed_.push_back(&slot);
  task_index_[it->first] = &slot;
}

void RunState::LoadTasks(std::vector<StoredTask> tasks) {
  // The store orders task keys by id length first (keys.h), the task map by
  // id: sorted once here, each task goes at the end of the map (recovery
  // loads a million of them).
  std::vector<size_t> order(tasks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return tasks[a].record.task().task_id() < tasks[b].record.task().task_id();
  });
  task_index_.reserve(task_index_.size() + tasks.size());
  parsed_.reserve(parsed_.size() + tasks.size());
  for (size_t i : order) LoadTask(std::move(tasks[i]));
}

void RunState::Committed(absl::string_view task_id, const std::string& bytes) {
  auto it = task_index_.find(task_id);
  if (it == task_index_.end()) return;
  TaskSlot& slot = *it->second;
  // Only a task about to be frozen needs them: one the engine works on
  // changes again before it waits.
  if (slot.record != nullptr && Waits(slot.record->task().state())) slot.bytes = bytes;
}

void RunState::Freeze() {
  size_t kept = 0;
  for (const TaskSlot* listed : parsed_) {
    // The run's own slots (listed as const only because reads parse them).
    TaskSlot& slot = const_cast<TaskSlot&>(*listed);
    if (slot.record == nullptr) continue;  // removed, or listed twice
    const v1::TaskState state = slot.record->task().state();
    if (!Waits(state)) {
      parsed_[kept++] = listed;
      continue;
    }
    if (slot.bytes.empty()) slot.bytes = slot.record->SerializeAsString();
    slot.frozen_state = state;
    slot.record.reset();
  }
  parsed_.resize(kept);
  // A burst (a submit, a recovery) listed many; what stays listed is few.
  if (parsed_.capacity() > 4 * kept + 1024) parsed_.shrink_to_fit();
}

size_t RunState::ParsedTaskCount() const {
  size_t parsed = 0;
  for (const auto& [id, slot] : tasks_) parsed += slot.record != nullptr ? 1 : 0;
  return parsed;
}

void RunState::CountTasks() {
  for (const std::string& id : changed_tasks_) {
    auto it = task_index_.find(id);
    if (it == task_index_.end()) continue;
    if (IsTerminal(it->second->state())) {
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
