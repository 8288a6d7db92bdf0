#ifndef TASKBOARD_SCHEDULER_FLOW_KINDS_BOARD_KIND_H_
#define TASKBOARD_SCHEDULER_FLOW_KINDS_BOARD_KIND_H_

// The board kind: an explicit task list with deps (docs/flow-dsl.md#3-kinds).
// A board runs as a taskflow whose phases are single agent tasks: one driver
// (engine/drivers/taskflow_driver.h) implements eager DAG scheduling, retries,
// optional tasks and transitive skipping for both kinds.

#include "scheduler/flow/kinds/flow_kind.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

extern const FlowKindInfo kBoardKind;

// Each board task becomes an agent phase with the same id, agent, task text,
// deps, optional flag, retries and timeout. Concurrency carries over
// (0 = limited only by worker slots).
v1::TaskflowSpec BoardAsTaskflow(const v1::BoardSpec& board);
// One board task as the agent phase it runs as.
v1::Phase BoardTaskAsPhase(const v1::BoardTask& task);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_KINDS_BOARD_KIND_H_
