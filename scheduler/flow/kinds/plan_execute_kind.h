#ifndef TASKBOARD_SCHEDULER_FLOW_KINDS_PLAN_EXECUTE_KIND_H_
#define TASKBOARD_SCHEDULER_FLOW_KINDS_PLAN_EXECUTE_KIND_H_

// The plan-and-execute kind: a planner writes steps, executors run them, an
// evaluator decides whether to replan (docs/flow-dsl.md#3-kinds). Its block
// codecs are exported because a `type: plan` phase nests the same block.

#include <string>

#include "absl/container/flat_hash_set.h"
#include "common/json.h"
#include "scheduler/flow/default_agent.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

extern const FlowKindInfo kPlanExecuteKind;

void DecodePlanExecute(const Json& value, const std::string& path, v1::PlanExecuteSpec* spec,
                       FlowErrorList* errors);
Json EncodePlanExecute(const v1::PlanExecuteSpec& spec);
// `in_phase`: the block of a `type: plan` phase (phase_pattern.h), whose
// goal is the phase's task.
void ValidatePlanExecute(const v1::PlanExecuteSpec& spec, const std::string& path, bool in_phase,
                         const absl::flat_hash_set<std::string>& args, FlowErrorList* errors);
// `in_phase`: as above; the phase's agent is the plan's executor.
void VisitPlanExecuteAgents(const std::string& path, v1::PlanExecuteSpec* spec, bool in_phase,
                            const AgentVisit& visit);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_KINDS_PLAN_EXECUTE_KIND_H_
