#ifndef TASKBOARD_SCHEDULER_FLOW_PHASE_PATTERN_H_
#define TASKBOARD_SCHEDULER_FLOW_PHASE_PATTERN_H_

// Composition (docs/flow-dsl.md "Pattern phases"): a taskflow phase of
// `type: plan` or `type: supervise`, or a map phase with a `plan` /
// `supervise` block, has each of its tasks carried out by a child run of
// that pattern. The block may leave out the agent that does the work: the
// phase's `agent` is the plan's executor or the supervisor's worker. Its
// goal is each task's interpolated text, filled in when the task starts.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// True when the phase's tasks are child pattern runs.
bool IsPatternPhase(const v1::Phase& phase);

// The phase's `type` as the DSL spells it: `plan` / `supervise` for an agent
// phase carried out by that pattern, else the type's name (a map keeps
// `map`; its block says the pattern).
absl::string_view PhaseTypeSpelling(const v1::Phase& phase);

// The phase's pattern with the phase's agent filled in where the block left
// the working agent out (no goal yet). Only for IsPatternPhase phases.
v1::PlanExecuteSpec PhasePlan(const v1::Phase& phase);
v1::SupervisorSpec PhaseSupervise(const v1::Phase& phase);

// Every plan-and-execute block of `spec` with its DSL path: the flow's own
// (`planAndExecute`) and each pattern phase's (`phases[2].plan`).
std::vector<std::pair<std::string, v1::PlanExecuteSpec*>> PlansOf(v1::FlowSpec& spec);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_PHASE_PATTERN_H_
