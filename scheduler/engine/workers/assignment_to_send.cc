#include "scheduler/engine/workers/assignment_to_send.h"

namespace taskboard::engine {

v1::Assignment AssignmentToSend(const store::TaskRecord& task, const store::RunRecord& run) {
  v1::Assignment assignment = task.assignment();
  if (!assignment.task_id().empty()) {  // stored whole
    assignment.set_parent_run_id(run.run().parent_run_id());
    return assignment;
  }
  const v1::Task& view = task.task();
  assignment.set_task_id(view.task_id());
  assignment.set_run_id(view.run_id());
  assignment.set_root_run_id(run.run().root_run_id());
  assignment.set_parent_run_id(run.run().parent_run_id());
  assignment.set_agent(view.agent());
  assignment.set_role(view.role());
  assignment.set_phase_id(view.phase_id());
  assignment.set_item_index(view.item_index());
  *assignment.mutable_args() = run.run().args();
  return assignment;
}

}  // namespace taskboard::engine
