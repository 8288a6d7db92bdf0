#include "scheduler/engine/drivers/plan_steps.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/engine/drivers/pattern_driver.h"
#include "scheduler/engine/drivers/pattern_tasks.h"

namespace taskboard::engine {

bool IsReservedStepId(absl::string_view id) {
  return id == PatternDriver::kPlannerId || id == PatternDriver::kSynthesizerId ||
         absl::StartsWith(id, "evaluator-") || absl::StartsWith(id, "replanner-") ||
         absl::StartsWith(id, "approve-plan-");
}

void RenameReservedSteps(std::vector<flow::PlannedTask>& steps) {
  // Steps share the run's task ids with the driver's own tasks.
  auto rename = [](std::string& id) {
    if (IsReservedStepId(id)) id += "-step";
  };
  for (flow::PlannedTask& step : steps) {
    rename(step.id);
    for (std::string& dep : step.deps) rename(dep);
  }
}

absl::StatusOr<std::vector<flow::PlannedTask>> PrepareAddedSteps(
    const RunState& run, std::vector<flow::PlannedTask> tasks, int replan_number,
    const RunLimits& limits) {
  if (absl::Status size = CheckPlanSize(tasks.size(), limits); !size.ok()) return size;
  absl::flat_hash_set<std::string> existing;
  absl::flat_hash_set<std::string> steps;
  for (const auto& [id, task] : run.tasks()) {
    existing.insert(id);
    if (task.task().role() == "step") steps.insert(id);
  }
  for (flow::PlannedTask& task : tasks) {
    if (IsReservedStepId(task.id)) task.id += "-step";
  }
  tasks = flow::RenameReplannedTasks(existing, std::move(tasks), replan_number);
  absl::flat_hash_set<std::string> known = steps;
  for (const flow::PlannedTask& task : tasks) known.insert(task.id);
  for (const flow::PlannedTask& task : tasks) {
    for (const std::string& dep : task.deps) {
      if (!known.contains(dep)) {
        return absl::InvalidArgumentError(
            absl::StrCat("task '", task.id, "' depends on '", dep, "', which is not in the plan"));
      }
    }
  }
  // New tasks may only wait on each other without a cycle, or they would
  // never run (tasks already in the plan cannot wait on new ones).
  absl::flat_hash_set<std::string> placed = steps;
  for (bool progress = true; progress;) {
    progress = false;
    for (const flow::PlannedTask& task : tasks) {
      if (placed.contains(task.id)) continue;
      if (std::all_of(task.deps.begin(), task.deps.end(),
                      [&](const std::string& dep) { return placed.contains(dep); })) {
        placed.insert(task.id);
        progress = true;
      }
    }
  }
  for (const flow::PlannedTask& task : tasks) {
    if (!placed.contains(task.id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("task '", task.id, "' is part of a dependency cycle among the new tasks"));
    }
  }
  return tasks;
}

}  // namespace taskboard::engine
