#ifndef TASKBOARD_SCHEDULER_FLOW_PHASE_GRAPH_H_
#define TASKBOARD_SCHEDULER_FLOW_PHASE_GRAPH_H_

// The DAG of a taskflow's phases: each phase's dependencies, its DAG layers
// (for rendering and `taskboard validate`), and which phase is final.

#include <string>
#include <vector>

#include "scheduler/flow/dag.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// The ids a phase waits for: dependsOn, then from (declaration order,
// duplicates removed). {previous.output} scans this list from the end.
std::vector<std::string> PhaseDependencies(const v1::Phase& phase);

std::vector<DagNode> PhaseNodes(const v1::TaskflowSpec& flow);

// Phases grouped by layer: layer 0 has no dependencies; a phase sits one
// layer below its deepest dependency. Requires a validated (acyclic) flow.
std::vector<std::vector<std::string>> PhaseLayers(const v1::TaskflowSpec& flow);

// The phase marked final, else the last phase in array order ("" if none).
std::string FinalPhaseId(const v1::TaskflowSpec& flow);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_PHASE_GRAPH_H_
