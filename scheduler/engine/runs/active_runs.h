#ifndef TASKBOARD_SCHEDULER_ENGINE_RUNS_ACTIVE_RUNS_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUNS_ACTIVE_RUNS_H_

// The runs the engine holds in memory: every run that is not finished, by
// id, each with its state, its driver and what the loop reads of its flow.
// A run leaves when the batch that finishes it is committed; reads of
// finished runs go to the store (run_reader.h).
//
// Loop thread only. An ActiveRun's address changes when another run is
// activated (the table is a flat map); its state and driver do not move.

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/drivers/driver.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/engine/state/run_task_graph.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::engine {

struct ActiveRun {
  std::unique_ptr<RunState> state;
  std::unique_ptr<Driver> driver;
  // The flow's settings; a board's without its task list (Activate).
  std::shared_ptr<const v1::FlowSpec> spec;
  // Policies read the run's tasks through it (tool_calls/prior_work.h).
  std::unique_ptr<RunTaskGraph> graph;
  // The flow policy with the kind's default filled in.
  v1::FlowPolicy policy;
  // Accepted by SubmitRun, its driver not started yet (StartingRuns): it has
  // no tasks, so it is not advanced (it would look finished).
  bool awaiting_start = false;
};

class ActiveRuns {
 public:
  using Map = absl::flat_hash_map<std::string, ActiveRun>;

  // The active run `run_id`, or null. Inline: every result, tool call and
  // dispatch looks its run up.
  ActiveRun* Find(absl::string_view run_id) {
    auto it = runs_.find(run_id);
    return it == runs_.end() ? nullptr : &it->second;
  }
  const ActiveRun* Find(absl::string_view run_id) const {
    auto it = runs_.find(run_id);
    return it == runs_.end() ? nullptr : &it->second;
  }
  bool contains(absl::string_view run_id) const { return runs_.contains(run_id); }

  // Makes `state` an active run under `driver`, reading `spec`'s settings:
  // its policy task graph and effective policy. A board's task list is not
  // kept (it is in the driver and the store).
  ActiveRun& Activate(std::unique_ptr<RunState> state, std::unique_ptr<Driver> driver,
                      v1::FlowSpec spec);
  // Replaces whatever is held of `run_id` by `state` alone, with no driver
  // (a run recovery quarantines: committed like a finished run, then gone).
  ActiveRun& Replace(std::unique_ptr<RunState> state);
  void Erase(const std::string& run_id) { runs_.erase(run_id); }

  // The run and each active run above it, the root (or the highest one still
  // active) last: who holds an LLM call's reservation and is billed for it.
  std::vector<ActiveRun*> ChainUp(ActiveRun& run);

  Map::iterator begin() { return runs_.begin(); }
  Map::iterator end() { return runs_.end(); }
  Map::const_iterator begin() const { return runs_.begin(); }
  Map::const_iterator end() const { return runs_.end(); }
  size_t size() const { return runs_.size(); }

 private:
  Map runs_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUNS_ACTIVE_RUNS_H_
