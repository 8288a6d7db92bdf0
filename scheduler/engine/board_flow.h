#ifndef TASKBOARD_SCHEDULER_ENGINE_BOARD_FLOW_H_
#define TASKBOARD_SCHEDULER_ENGINE_BOARD_FLOW_H_

// A board (an explicit task list with deps) runs as a taskflow whose phases
// are single agent tasks: one driver implements eager DAG scheduling,
// retries, optional tasks and transitive skipping for both kinds.

#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

// Each board task becomes an agent phase with the same id, agent, task text,
// deps, optional flag, retries and timeout. Concurrency carries over
// (0 = limited only by worker slots).
v1::TaskflowSpec BoardAsTaskflow(const v1::BoardSpec& board);
// One board task as the agent phase it runs as.
v1::Phase BoardTaskAsPhase(const v1::BoardTask& task);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_BOARD_FLOW_H_
