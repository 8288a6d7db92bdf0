#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_TASK_GRAPH_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_TASK_GRAPH_H_

// A run's task graph as the flow policies see it (policy::TaskGraph): a
// task's declared dependencies are every task of the phases its phase waits
// for (PhaseDependencies: dependsOn, then `from`), so an item of a map phase
// that follows another map phase depends on all of that phase's items. Board
// tasks are phases of their own (flow/kinds/board_kind.h), so their deps
// carry over; a board's are read from its task records, which hold them
// anyway.
//
// Reads the run's live task table: tasks of phase P are `P` and `P[i]`,
// found by one ordered range lookup, never by scanning the run.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/policy/task_graph.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

class RunTaskGraph : public policy::TaskGraph {
 public:
  // `run` must outlive the graph. Flows that are neither taskflows nor
  // boards have no declared phase dependencies (yet).
  RunTaskGraph(const v1::FlowSpec& spec, const RunState* run);

  std::vector<policy::TaskKey> DirectDeps(const policy::TaskKey& task) const override;
  bool IsCompleted(const policy::TaskKey& task) const override;

 private:
  // Taskflows: the deps of the phase task `task_id` belongs to, read from
  // its id (`P` or `P[i]`); null if it names no phase.
  const std::vector<std::string>* PhaseDepsOf(absl::string_view task_id) const;
  // The tasks of `phases`, each phase's own and its items'.
  void AppendPhaseTasks(const std::string& run_id, const std::vector<std::string>& phases,
                        std::vector<policy::TaskKey>& deps) const;

  const RunState* run_;
  bool board_ = false;  // deps come from the task records
  // Taskflows: each phase's dependencies (PhaseDependencies).
  absl::flat_hash_map<std::string, std::vector<std::string>> phase_deps_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_TASK_GRAPH_H_
