#ifndef TASKBOARD_SCHEDULER_FLOW_DEFAULT_AGENT_H_
#define TASKBOARD_SCHEDULER_FLOW_DEFAULT_AGENT_H_

// The defaults a flow may leave out, filled in when a run is submitted so the
// stored run spec (and so `show`, `validate --plan` and resume) names what
// runs (docs/decisions.md 77):
//
// - every agent a flow leaves unset (a phase, a parallel branch through its
//   phase, a board task, the pattern roles planner / executor / evaluator /
//   worker / reviewer) is the scheduler's default agent, as pi-taskflow runs
//   such a phase on its first available agent. The replanner stays unset (it
//   falls back to the planner) and so does the synthesizer (none: the output
//   is the plan JSON);
// - `enableReplanning: true` without `evaluator` means the llm evaluator,
//   the only one that can decide to replan.
//
// Which agent is the default is the engine's choice (it knows the workers);
// these functions only find and fill the places.

#include <functional>
#include <string>
#include <vector>

#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// The DSL paths of the agents `spec` leaves to the default agent, in
// document order (`phases[1].agent`, `planAndExecute.plannerAgent`); empty
// when the flow names every agent it needs. Counts the evaluator agent the
// evaluator default makes necessary.
std::vector<std::string> UnsetAgentPaths(const v1::FlowSpec& spec);

// Sets the llm evaluator where replanning needs it, then fills every path
// UnsetAgentPaths lists with `agent` (nothing when `agent` is empty).
void FillFlowDefaults(const std::string& agent, v1::FlowSpec* spec);

// For the kinds (kinds/flow_kind.h): called with the DSL path and the field
// of an agent a flow leaves unset.
using AgentVisit = std::function<void(const std::string& path, std::string* agent)>;

// Calls `visit` for `agent` when it is unset.
void VisitAgent(const std::string& path, std::string* agent, const AgentVisit& visit);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_DEFAULT_AGENT_H_
