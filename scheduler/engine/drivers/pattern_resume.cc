#include "scheduler/engine/drivers/pattern_resume.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/engine/drivers/pattern_tasks.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/task_lifecycle.h"

namespace taskboard::engine {

void ResetForResume(store::TaskRecord& task) {
  v1::Task& view = *task.mutable_task();
  view.set_state(v1::TASK_STATE_PENDING);
  view.clear_error();
  view.clear_skip_reason();
  view.clear_output();
  view.clear_worker_id();
  view.clear_attempt();
  view.clear_started_at();
  view.clear_finished_at();
  task.clear_lease_id();
  task.clear_worker_incarnation();
  task.set_agent_failures(0);
  task.set_infra_failures(0);
  task.set_not_before_unix_ms(0);
  task.set_ready_unix_ms(0);
  task.set_dispatched_unix_ms(0);
  task.set_started_unix_ms(0);
  task.set_finished_unix_ms(0);
}

std::vector<std::string> RewindPatternRun(RunState& run, const PatternShape& shape,
                                          int64_t now_ms) {
  const bool ended = run.record().pattern_phase() == pattern_phase::kCompleted;
  std::vector<std::string> unfinished;
  for (const auto& [id, task] : run.tasks()) {
    if (task.task().state() != v1::TASK_STATE_COMPLETED) unfinished.push_back(id);
  }
  std::vector<std::string> work;
  for (const std::string& id : unfinished) {
    store::TaskRecord& task = run.MutableTask(id);
    const bool is_work = task.task().role() == shape.work_role;
    if (ended && id == shape.synthesizer_id) continue;  // dropped below
    if (IsApprovalTask(task)) {
      // A person's task is asked again, never dispatched.
      if (!WaitsForApproval(task)) AskAgain(task, now_ms);
      continue;
    }
    RecordAttemptOnResume(task, now_ms);
    ResetForResume(task);
    if (is_work) {
      work.push_back(id);
    } else {
      MarkReady(task, now_ms);
    }
  }
  if (ended) {
    // The synthesizer judged results that are about to change.
    if (run.FindTask(shape.synthesizer_id) != nullptr) run.RemoveTask(shape.synthesizer_id);
    SetPatternPhase(run, pattern_phase::kActive, 1,
                    absl::StrCat("resumed: ", work.size(), " tasks to run again"));
  }
  return work;
}

}  // namespace taskboard::engine
