#include "tools/cli/run_snapshot.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "scheduler/governance/usage_sum.h"
#include "tools/cli/run_states.h"

namespace taskboard::cli {
namespace {

// What the scheduler appends to a text it cut to --max-event-bytes
// (scheduler/engine/runs/event_size.h); the stored task keeps the whole text.
constexpr absl::string_view kCutMarker = " bytes shown; scheduler flag ";
// The flag's minimum is 1024 bytes and a cut event ends close to the limit:
// smaller events were never cut, and are not searched.
constexpr size_t kSmallestCutEvent = 512;

bool WasCut(const v1::RunEvent& event) {
  if (event.ByteSizeLong() < kSmallestCutEvent) return false;
  return absl::StrContains(event.SerializeAsString(), kCutMarker);
}

bool SameUsage(const v1::Usage& a, const v1::Usage& b) {
  return a.input_tokens() == b.input_tokens() && a.output_tokens() == b.output_tokens() &&
         a.cache_read_tokens() == b.cache_read_tokens() && a.cost_usd() == b.cost_usd() &&
         a.turns() == b.turns() && a.model() == b.model();
}

bool IsFanOut(v1::PhaseType type) {
  return type == v1::PHASE_TYPE_MAP || type == v1::PHASE_TYPE_PARALLEL;
}

}  // namespace

bool RunSnapshot::TaskOrder(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

void RunSnapshot::Reset(v1::Run run) {
  run_ = std::move(run);
  fill_until_ = 0;
  Reindex();
}

void RunSnapshot::ResetWithoutTasks(v1::Run run) {
  const bool has_tasks = run.tasks_size() > 0 || run.tasks_total() == 0;
  Reset(std::move(run));
  if (has_tasks) return;
  fill_until_ = run_.last_seq();
  fill_run_starts_ = 0;
}

bool RunSnapshot::RefreshWithoutTasks(v1::Run run) {
  if (run.tasks_size() > 0) {
    Reset(std::move(run));
    return true;
  }
  if (fill_until_ > 0 || run.tasks_total() > run_.tasks_size()) return false;
  this->run();  // the tasks in order, as GetRun would list them
  // The task messages change hands without moving, so tasks_ still points
  // at them; a board's phases, which the answer leaves out, stay too.
  run.mutable_tasks()->Swap(run_.mutable_tasks());
  if (run.kind() == v1::FLOW_KIND_BOARD && run.phases().empty()) {
    run.mutable_phases()->Swap(run_.mutable_phases());
  }
  run_ = std::move(run);
  IndexPhases();
  return true;
}

void RunSnapshot::Reindex() {
  tasks_.clear();
  tasks_.reserve(run_.tasks_size());
  for (v1::Task& task : *run_.mutable_tasks()) tasks_[task.task_id()] = &task;
  IndexPhases();
  ordered_ = run_.tasks_size();
  changed_.clear();
  all_changed_ = true;
}

void RunSnapshot::IndexPhases() {
  phases_.clear();
  for (int i = 0; i < run_.phases_size(); ++i) phases_[run_.phases(i).phase_id()] = i;
}

void RunSnapshot::MarkChanged(const v1::Task* task) {
  if (!all_changed_) changed_.push_back(task);
}

const v1::Run& RunSnapshot::run() {
  if (ordered_ < run_.tasks_size()) {
    // New tasks usually come in order (a map's items are created by index,
    // and `x[9]` sorts before `x[10]`); otherwise sort them and merge them
    // in: proportional to the run once per batch, not per task. The task
    // messages stay where they are, only pointers move.
    auto begin = run_.mutable_tasks()->pointer_begin();
    auto middle = begin + ordered_;
    auto end = run_.mutable_tasks()->pointer_end();
    const auto less = [](const v1::Task* a, const v1::Task* b) {
      return TaskOrder(a->task_id(), b->task_id());
    };
    if (!std::is_sorted(middle, end, less)) std::sort(middle, end, less);
    if (ordered_ > 0 && less(*middle, *(middle - 1))) std::inplace_merge(begin, middle, end, less);
    ordered_ = run_.tasks_size();
  }
  return run_;
}

std::optional<std::vector<const v1::Task*>> RunSnapshot::TakeChangedTasks() {
  std::vector<const v1::Task*> changed;
  changed.swap(changed_);
  if (std::exchange(all_changed_, false)) return std::nullopt;
  // Sorting a quarter of the run costs about what looking at every task
  // does (the replay that fills a snapshot changes them all).
  if (changed.size() > static_cast<size_t>(run_.tasks_size()) / 4) return std::nullopt;
  // run()'s order is TaskOrder; one id is one task, so repeats sit together.
  std::sort(changed.begin(), changed.end(), [](const v1::Task* a, const v1::Task* b) {
    return TaskOrder(a->task_id(), b->task_id());
  });
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  return changed;
}

RunSnapshot::Applied RunSnapshot::Apply(const v1::RunEvent& event) {
  v1::RunEvent copy = event;
  return Apply(std::move(copy));
}

RunSnapshot::Applied RunSnapshot::Apply(v1::RunEvent&& event) {
  if (event.seq() <= run_.last_seq()) {
    return event.seq() <= fill_until_ ? Fill(event) : Applied::kUnchanged;
  }
  Applied applied = Applied::kChanged;
  switch (event.event_case()) {
    case v1::RunEvent::kOutputDelta:
    case v1::RunEvent::kObservation:
    case v1::RunEvent::kWarning:
      applied = Applied::kUnchanged;
      break;
    case v1::RunEvent::kTaskChange:
      applied = WasCut(event) ? Applied::kNeedsFetch
                              : ApplyTask(std::move(*event.mutable_task_change()->mutable_task()));
      break;
    case v1::RunEvent::kTasksCreated:
      // Never cut (the scheduler sizes each to --max-event-bytes), so no
      // WasCut search over what is often the largest event of the run.
      for (v1::Task& task : *event.mutable_tasks_created()->mutable_tasks()) {
        ApplyTask(std::move(task));
      }
      break;
    case v1::RunEvent::kPhaseChange:
      applied = ApplyPhase(event.phase_change().phase());
      break;
    case v1::RunEvent::kBoardMeta:
      run_.set_board_meta(event.board_meta().phase());
      break;
    case v1::RunEvent::kChildRunStarted: {
      const std::string& child = event.child_run_started().child_run_id();
      const auto& known = run_.child_run_ids();
      if (std::find(known.begin(), known.end(), child) == known.end()) {
        run_.add_child_run_ids(child);
      }
      break;
    }
    case v1::RunEvent::kRunFinished: {
      if (WasCut(event)) return Applied::kNeedsFetch;
      v1::RunFinished& finished = *event.mutable_run_finished();
      run_.set_status(finished.status());
      run_.set_output(std::move(*finished.mutable_output()));
      run_.set_error(std::move(*finished.mutable_error()));
      *run_.mutable_usage() = finished.usage();
      *run_.mutable_finished_at() = event.ts();
      break;
    }
    default:
      // run_started past the snapshot (a resume), or a kind added later.
      return Applied::kNeedsFetch;
  }
  // Events that show nothing still count: GetRun's last_seq is the last
  // event of any kind.
  if (applied != Applied::kNeedsFetch) run_.set_last_seq(event.seq());
  return applied;
}

RunSnapshot::Applied RunSnapshot::Fill(v1::RunEvent& event) {
  Applied applied = Applied::kUnchanged;
  switch (event.event_case()) {
    case v1::RunEvent::kTaskChange:
      if (WasCut(event)) return Applied::kNeedsFetch;
      PutTask(std::move(*event.mutable_task_change()->mutable_task()));
      applied = Applied::kChanged;
      break;
    case v1::RunEvent::kTasksCreated:
      for (v1::Task& task : *event.mutable_tasks_created()->mutable_tasks()) {
        PutTask(std::move(task));
      }
      applied = Applied::kChanged;
      break;
    case v1::RunEvent::kRunStarted:
      // A resume deletes tasks (a map's items past its new count) without
      // an event: the replay cannot tell which.
      if (++fill_run_starts_ > 1) return Applied::kNeedsFetch;
      break;
    default:
      break;
  }
  if (event.seq() == fill_until_) {
    fill_until_ = 0;
    // Runs stored before tasks_created announce their tasks only in GetRun.
    if (run_.tasks_size() != run_.tasks_total()) return Applied::kNeedsFetch;
  }
  return applied;
}

void RunSnapshot::PutTask(v1::Task&& task) {
  auto [it, added] = tasks_.try_emplace(task.task_id(), nullptr);
  if (added) it->second = run_.add_tasks();
  *it->second = std::move(task);
  MarkChanged(it->second);
}

RunSnapshot::Applied RunSnapshot::ApplyTask(v1::Task&& task) {
  auto [it, added] = tasks_.try_emplace(task.task_id(), nullptr);
  v1::Task*& held = it->second;
  const bool was_ended = !added && IsTaskEnded(held->state());
  const bool new_usage = added ? task.has_usage() : !SameUsage(held->usage(), task.usage());
  if (new_usage) {
    governance::AddUsage(*run_.mutable_usage(), task.usage());
  }
  if (added) {
    held = run_.add_tasks();
    run_.set_tasks_total(run_.tasks_size());
  }
  const bool ended = IsTaskEnded(task.state());
  *held = std::move(task);
  run_.set_tasks_done(run_.tasks_done() + (ended ? 1 : 0) - (was_ended ? 1 : 0));
  MarkChanged(held);
  return Applied::kChanged;
}

RunSnapshot::Applied RunSnapshot::ApplyPhase(const v1::PhaseStatus& phase) {
  auto it = phases_.find(phase.phase_id());
  if (it == phases_.end()) return Applied::kNeedsFetch;
  v1::PhaseStatus& held = *run_.mutable_phases(it->second);
  // A fan-out starts (or restarts, in a resumed run) when its phase leaves
  // pending; the scheduler then deletes the items of an earlier fan-out
  // that the new one does not have, without an event of their own.
  if (IsFanOut(phase.type()) && held.state() == v1::TASK_STATE_PENDING &&
      phase.state() != v1::TASK_STATE_PENDING) {
    DropItemsPast(phase.phase_id(), phase.items_total());
  }
  held = phase;
  return Applied::kChanged;
}

void RunSnapshot::DropItemsPast(const std::string& phase_id, int items) {
  run();  // every task in order, so what is left stays in order
  auto& tasks = *run_.mutable_tasks();
  bool dropped = false;
  for (int i = 0; i < tasks.size();) {
    const v1::Task& task = tasks.Get(i);
    if (task.phase_id() == phase_id && task.item_index() >= items) {
      if (IsTaskEnded(task.state())) run_.set_tasks_done(run_.tasks_done() - 1);
      tasks.DeleteSubrange(i, 1);
      dropped = true;
    } else {
      ++i;
    }
  }
  if (!dropped) return;
  run_.set_tasks_total(tasks.size());
  Reindex();
}

}  // namespace taskboard::cli
