#include "scheduler/engine/state/run_task_graph.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/flow/phase_graph.h"

namespace taskboard::engine {

RunTaskGraph::RunTaskGraph(const v1::FlowSpec& spec, const RunState* run) : run_(run) {
  // A board task's record carries its deps (TaskflowDriver::NewTask copies
  // a single-task phase's dependsOn), so a board keeps no table of its own:
  // one was a tenth of a pending board task's memory.
  if (spec.has_board()) {
    board_ = true;
    return;
  }
  phase_deps_.reserve(spec.taskflow().phases_size());
  for (const v1::Phase& phase : spec.taskflow().phases()) {
    phase_deps_.insert_or_assign(phase.id(), flow::PhaseDependencies(phase));
  }
}

const std::vector<std::string>* RunTaskGraph::PhaseDepsOf(absl::string_view task_id) const {
  auto phase = phase_deps_.find(task_id);
  if (phase == phase_deps_.end() && absl::EndsWith(task_id, "]")) {
    const size_t open = task_id.rfind('[');
    if (open != absl::string_view::npos) phase = phase_deps_.find(task_id.substr(0, open));
  }
  return phase == phase_deps_.end() ? nullptr : &phase->second;
}

std::vector<policy::TaskKey> RunTaskGraph::DirectDeps(const policy::TaskKey& key) const {
  std::vector<policy::TaskKey> deps;
  if (key.run_id != run_->run_id()) return deps;
  // A taskflow task's phase is in its id: walking a run's ancestors (the
  // `ancestors: transitive` policy) reads no task record, which a run keeps
  // serialized while the task waits or is over (RunState::TaskSlot).
  if (const std::vector<std::string>* phase = board_ ? nullptr : PhaseDepsOf(key.task_id)) {
    if (run_->HasTask(key.task_id)) AppendPhaseTasks(key.run_id, *phase, deps);
    return deps;
  }
  const store::TaskRecord* task = run_->FindTask(key.task_id);
  if (task == nullptr) return deps;
  if (board_) {
    // Board tasks are single-task phases: a dep is the task of that id,
    // named once however often the board lists it.
    for (const std::string& dep : task->task().deps()) {
      const bool seen = std::any_of(deps.begin(), deps.end(), [&](const policy::TaskKey& known) {
        return known.task_id == dep;
      });
      if (!seen && run_->HasTask(dep)) deps.push_back({key.run_id, dep});
    }
    return deps;
  }
  auto phase = phase_deps_.find(task->task().phase_id());
  if (phase == phase_deps_.end()) {
    // Plan steps and other pattern tasks name their deps themselves.
    for (const std::string& dep : task->task().deps()) deps.push_back({key.run_id, dep});
    return deps;
  }
  AppendPhaseTasks(key.run_id, phase->second, deps);
  return deps;
}

void RunTaskGraph::AppendPhaseTasks(const std::string& run_id,
                                    const std::vector<std::string>& phases,
                                    std::vector<policy::TaskKey>& deps) const {
  for (const std::string& dep : phases) {
    if (run_->HasTask(dep)) deps.push_back({run_id, dep});
    // Items and branches: "dep[0]", "dep[1]", ... sort together after "dep[".
    for (absl::string_view item : run_->TaskIdsWithPrefix(absl::StrCat(dep, "["))) {
      deps.push_back({run_id, std::string(item)});
    }
  }
}

bool RunTaskGraph::IsCompleted(const policy::TaskKey& key) const {
  if (key.run_id != run_->run_id()) return false;
  return run_->StateOf(key.task_id) == v1::TASK_STATE_COMPLETED;
}

}  // namespace taskboard::engine
