#include "scheduler/engine/run_task_graph.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/flow/phase_graph.h"

namespace taskboard::engine {

RunTaskGraph::RunTaskGraph(const v1::FlowSpec& spec, const RunState* run) : run_(run) {
  // Read from the spec as it is: a board converted to phases here was a copy
  // of every task's prompt per submit, for the deps alone.
  if (spec.has_board()) {
    phase_deps_.reserve(spec.board().tasks_size());
    for (const v1::BoardTask& task : spec.board().tasks()) {
      phase_deps_.insert_or_assign(task.id(), flow::BoardTaskDependencies(task));
    }
    return;
  }
  phase_deps_.reserve(spec.taskflow().phases_size());
  for (const v1::Phase& phase : spec.taskflow().phases()) {
    phase_deps_.insert_or_assign(phase.id(), flow::PhaseDependencies(phase));
  }
}

std::vector<policy::TaskKey> RunTaskGraph::DirectDeps(const policy::TaskKey& key) const {
  std::vector<policy::TaskKey> deps;
  if (key.run_id != run_->run_id()) return deps;
  const store::TaskRecord* task = run_->FindTask(key.task_id);
  if (task == nullptr) return deps;
  auto phase = phase_deps_.find(task->task().phase_id());
  if (phase == phase_deps_.end()) {
    // Plan steps and other pattern tasks name their deps themselves.
    for (const std::string& dep : task->task().deps()) deps.push_back({key.run_id, dep});
    return deps;
  }
  const auto& tasks = run_->tasks();
  for (const std::string& dep : phase->second) {
    if (tasks.count(dep) > 0) deps.push_back({key.run_id, dep});
    // Items and branches: "dep[0]", "dep[1]", ... sort together after "dep[".
    const std::string items = absl::StrCat(dep, "[");
    for (auto it = tasks.lower_bound(items);
         it != tasks.end() && absl::StartsWith(it->first, items); ++it) {
      deps.push_back({key.run_id, it->first});
    }
  }
  return deps;
}

bool RunTaskGraph::IsCompleted(const policy::TaskKey& key) const {
  if (key.run_id != run_->run_id()) return false;
  const store::TaskRecord* task = run_->FindTask(key.task_id);
  return task != nullptr && task->task().state() == v1::TASK_STATE_COMPLETED;
}

}  // namespace taskboard::engine
