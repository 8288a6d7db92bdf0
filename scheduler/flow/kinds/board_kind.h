#ifndef TASKBOARD_SCHEDULER_FLOW_KINDS_BOARD_KIND_H_
#define TASKBOARD_SCHEDULER_FLOW_KINDS_BOARD_KIND_H_

// The board kind: an explicit task list with deps (docs/flow-dsl.md#3-kinds).

#include "scheduler/flow/kinds/flow_kind.h"

namespace taskboard::flow {

extern const FlowKindInfo kBoardKind;

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_KINDS_BOARD_KIND_H_
