#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_TASKFLOW_DRIVER_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_TASKFLOW_DRIVER_H_

// The driver of `taskflow` runs (docs/semantics.md#execution) and of `board` runs, which
// are taskflows of single-agent phases (flow/kinds/board_kind.h).
//
// Phases start eagerly, the moment their dependencies are satisfied, with at
// most `concurrency` phases in flight; fan-out phases (map, parallel) keep at
// most `phase.concurrency ?? concurrency` items in flight. Task ids are the
// phase id for single-task phases and `phase[i]` for fan-out items.
//
//   PENDING --deps satisfied--> RUNNING --all tasks terminal--> COMPLETED | FAILED
//      |                           (map over [] completes at once)
//      +--upstream failed / gate blocked / resume reuse--> SKIPPED | COMPLETED
//      +--not on the route an approval's decision took (onReject)--> SKIPPED

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/json.h"
#include "scheduler/engine/drivers/driver.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/flow/dag.h"
#include "scheduler/flow/interpolation.h"

namespace taskboard::engine {

class TaskflowDriver final : public Driver {
 public:
  // `spec` is a taskflow or a board. A map phase over more items than
  // `limits.max_items_per_phase`, or a template interpolating to more than
  // `limits.max_interpolated_bytes`, fails its phase naming the limit.
  explicit TaskflowDriver(const v1::FlowSpec& spec, const RunLimits& limits = {});
  // index_of_ views the ids the driver holds.
  TaskflowDriver(const TaskflowDriver&) = delete;
  TaskflowDriver& operator=(const TaskflowDriver&) = delete;

  void Start(RunState& run, int64_t now_ms) override;
  void Advance(RunState& run, int64_t now_ms) override;

  // The id of item `index` of a fan-out phase.
  static std::string ItemTaskId(absl::string_view phase_id, int index);

 private:
  // Phase `index` of a taskflow. A board's phases are its tasks, kept as
  // the board's tasks (a `Phase` each cost 240 bytes per pending task): for
  // a board this is the agent phase every board task is, without the id,
  // deps, optional flag, agent or text of any one of them. Those come from
  // PhaseIdAt, DepsAt, OptionalAt, and for starting or skipping the task,
  // StartablePhase.
  const v1::Phase& PhaseAt(int index) const;
  int PhaseCount() const;
  const std::string& PhaseIdAt(int index) const;
  std::vector<std::string> DepsAt(int index) const;
  bool OptionalAt(int index) const;
  // Phase `index` whole, as StartPhase and SkipPhase need it: a board task
  // as the agent phase it runs as (flow/kinds/board_kind.h).
  v1::Phase StartablePhase(int index) const;
  // A started board task's agent and text are in its task record: let go.
  void ReleaseStarted(int index);
  // The flow's phases as DAG nodes (id and deps).
  std::vector<flow::DagNode> Nodes() const;
  // The ids of every phase phase `index` depends on, directly or not.
  absl::flat_hash_set<std::string> UpstreamOf(int index) const;
  bool IsFanOut(const v1::Phase& phase) const;
  std::vector<std::string> TaskIdsOf(int index, int items_total) const;

  // One pass over the pending phases: skip or start what it can. Returns
  // whether anything changed (a started phase may complete at once).
  bool StartReadyPhases(RunState& run, int64_t now_ms);
  void StartPhase(RunState& run, int index, int64_t now_ms);
  void PromoteItems(RunState& run, int index, int64_t now_ms);
  // Whether a task from before a resume was asked to do what `now` is.
  static bool SameWork(const store::TaskRecord& before, const store::TaskRecord& now);
  // Completes or fails a running phase whose tasks are all terminal.
  bool MaybeFinishPhase(RunState& run, int index, int64_t now_ms);
  void ApplyGate(RunState& run, int index);
  // A decided approval phase or approval gate: a rejection blocks the run
  // like a gate's, unless its `onReject` routes it (approval_routes.h).
  void ApplyApproval(RunState& run, int index);
  static bool WasRejected(const v1::Phase& phase, const store::PhaseRecord& record);
  // Why the dependent `dependent_id` of the phase at `approval_index`, which
  // ended as `record` says, is skipped by its `onReject` route; "" if not.
  std::string RouteSkipReason(const RunState& run, int approval_index,
                              const store::PhaseRecord& record,
                              const std::string& dependent_id) const;
  // Why the phases not started are skipped once the run is blocked: the
  // gate's reason, or for an approval who rejected it, referring to its
  // decision for the comment (which is stored once, in the approval's task).
  std::string BlockedSkipReason(const RunState& run) const;
  void FailPhase(RunState& run, int index, std::string error, int64_t now_ms);
  void SkipPhase(RunState& run, int index, std::string reason, int64_t now_ms);
  void FinishRun(RunState& run, int64_t now_ms);

  flow::InterpolationContext ContextFor(const RunState& run, int index, const v1::Phase& phase);
  // The phase error for a template of `field` that did not interpolate.
  std::string InterpolationError(const v1::Phase& phase, absl::string_view field,
                                 const absl::Status& status) const;
  const Json& Args(const RunState& run);
  store::TaskRecord NewTask(RunState& run, int index, const v1::Phase& phase, std::string task_id,
                            int item_index, std::string agent, std::string prompt, int64_t now_ms);
  void EmitPhaseEvent(RunState& run, int index);

  bool board_ = false;
  RunLimits limits_;
  // The flow's settings without its phases, for the child runs of pattern
  // phases. Boards have none, so theirs stays empty (copying a 10,000-task
  // board only to clear it was a tenth of its SubmitRun).
  v1::FlowSpec parent_;
  v1::TaskflowSpec flow_;     // a board's: its settings, no phases
  v1::BoardSpec board_spec_;  // a board's tasks
  int concurrency_ = 0;       // phases in flight; 0 = no limit
  int default_max_attempts_ = 1;
  int default_timeout_seconds_ = 0;
  // Hashed, not ordered: a board looks a phase up per task on every batch.
  // Keys view the ids in flow_ or board_spec_, which never change.
  absl::flat_hash_map<absl::string_view, int> index_of_;
  std::vector<int> priority_;  // boards: the priority of each phase's task
  // Phase indexes in the order pending phases are considered for a start:
  // array order, boards by priority first, so a concurrency limit admits
  // the higher priority task.
  std::vector<int> start_order_;
  std::vector<int> layers_;
  std::string final_phase_;
  // Approvals with `onReject` (by index) -> the phases their rejection runs.
  std::map<int, absl::flat_hash_set<std::string>> routes_;
  bool scanned_ = false;  // Advance has looked at every phase once

  // What a running phase's tasks have done, kept so that a batch costs what
  // happened in it and not the size of the phase (a map of 10,000 items was
  // re-read whole on every batch). Items start in index order, so only a
  // window is open: [open_from, start_from) holds the started items not yet
  // counted; those below are counted, those from start_from on not started.
  // Memory only: a new driver (restart, resume) rebuilds it from the tasks.
  struct PhaseProgress {
    int open_from = 0;
    int start_from = 0;
    int done = 0;
    int failed = 0;
    v1::Usage usage;
    std::vector<bool> counted;
  };
  PhaseProgress& ProgressOf(int index, int items);
  // Drops the progress of a single-task phase (not a map or parallel).
  void ForgetSingleTaskProgress(int index);
  // Moves `progress` past started items and counts the ones that ended.
  void Track(const RunState& run, int index, PhaseProgress& progress);
  std::string TaskIdAt(int index, int item) const;
  // By phase index, sized once: a board has a phase per task, and a tree
  // map of them cost a lookup and a node per task on every submit. Made
  // when first asked for, and kept between batches only for fan-out phases.
  std::vector<std::unique_ptr<PhaseProgress>> progress_;
  // Phases before this index are all terminal (they never go back).
  int first_open_phase_ = 0;
  // Phases still pending, in start order.
  std::vector<int> pending_;
  bool args_parsed_ = false;
  Json args_;
};

// The driver of taskflow and board runs (driver_factory.cc).
std::unique_ptr<Driver> MakeTaskflowDriver(const v1::FlowSpec& spec, const RunLimits& limits);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_TASKFLOW_DRIVER_H_
