#ifndef TASKBOARD_SCHEDULER_ENGINE_WORKERS_ASSIGNMENT_TO_SEND_H_
#define TASKBOARD_SCHEDULER_ENGINE_WORKERS_ASSIGNMENT_TO_SEND_H_

// The Assignment a worker is sent for a task, completed at dispatch.
//
// A taskflow or board task's record stores only what is particular to its
// assignment (prompt, model, tools, timeout, output format...). What the
// task itself or its run already says (task and run ids, agent, role, phase
// and item, the run's args) is left out of the stored assignment and filled
// in here, so a pending task does not hold a second copy of its ids and of
// the run's args (issue 19's memory per pending task; decision 118).
// Records without task_id in their assignment are those; records written
// before, and the pattern drivers' tasks, carry the whole assignment and
// are sent as stored.

#include "scheduler/store/records.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine {

// `task`'s stored assignment, with the fields derived from the task and its
// run (`run`) filled in when the record left them out. Lease, attempt and
// ready time are the dispatcher's to set.
v1::Assignment AssignmentToSend(const store::TaskRecord& task, const store::RunRecord& run);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_WORKERS_ASSIGNMENT_TO_SEND_H_
