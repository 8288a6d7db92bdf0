#ifndef TASKBOARD_SCHEDULER_FLOW_KINDS_SUPERVISOR_KIND_H_
#define TASKBOARD_SCHEDULER_FLOW_KINDS_SUPERVISOR_KIND_H_

// The supervisor kind: a planner splits the goal into sub-tasks, workers do
// them, a reviewer accepts or sends them back (docs/flow-dsl.md#3-kinds).
// Its block codecs are exported because a `type: supervise` phase and a
// plan's `stepExecutor` nest the same block.

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "common/json.h"
#include "scheduler/flow/default_agent.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

extern const FlowKindInfo kSupervisorKind;

void DecodeSupervisor(const Json& value, const std::string& path, v1::SupervisorSpec* spec,
                      FlowErrorList* errors);
Json EncodeSupervisor(const v1::SupervisorSpec& spec);
// `nested`: a block inside a phase or a plan, whose goal comes from there.
void ValidateSupervisor(const v1::SupervisorSpec& spec, const std::string& path, bool nested,
                        const absl::flat_hash_set<std::string>& args, FlowErrorList* errors);
// `in_phase`: the block of a pattern phase, whose working agent (the
// supervisor's worker) is the phase's agent (phase_pattern.h), visited with
// the phase.
void VisitSupervisorAgents(const std::string& path, v1::SupervisorSpec* spec, bool in_phase,
                           const AgentVisit& visit);
// planner, worker, reviewer, synthesizer (`taskboard validate`).
std::vector<FlowRole> SupervisorRoles(const v1::SupervisorSpec& spec);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_KINDS_SUPERVISOR_KIND_H_
