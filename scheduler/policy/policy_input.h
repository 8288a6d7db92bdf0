#ifndef TASKBOARD_SCHEDULER_POLICY_POLICY_INPUT_H_
#define TASKBOARD_SCHEDULER_POLICY_POLICY_INPUT_H_

// What every flow policy selects from: the request's ledger, its task graph
// and the task about to be dispatched. Borrowed for one selection.

#include "scheduler/policy/request_ledger.h"
#include "scheduler/policy/task_graph.h"
#include "scheduler/policy/task_key.h"

namespace taskboard::policy {

struct PolicyInput {
  const RequestLedger& ledger;
  const TaskGraph& graph;
  TaskKey task;
};

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_POLICY_INPUT_H_
