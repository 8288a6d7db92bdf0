#ifndef TASKBOARD_SCHEDULER_FLOW_KINDS_TASKFLOW_KIND_H_
#define TASKBOARD_SCHEDULER_FLOW_KINDS_TASKFLOW_KIND_H_

// The taskflow kind: phases at the top of the document, run as a DAG
// (docs/flow-dsl.md#4-phases-taskflow). The default kind: a document with no
// `kind` and no other kind's block is a taskflow.

#include "scheduler/flow/kinds/flow_kind.h"

namespace taskboard::flow {

extern const FlowKindInfo kTaskflowKind;

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_KINDS_TASKFLOW_KIND_H_
