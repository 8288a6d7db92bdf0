#ifndef TASKBOARD_SCHEDULER_ENGINE_RUN_STATE_H_
#define TASKBOARD_SCHEDULER_ENGINE_RUN_STATE_H_

// One run's in-memory state as the engine and its driver see it: the stored
// run record, its tasks, and what changed since the engine last committed.
//
// Drivers and the task lifecycle mutate a RunState only through the Mutable*
// and Add/Remove methods, which record the change; the engine turns the
// recorded changes into one WriteBatch plus the run's watch events (what was
// emitted, the added tasks in `tasks_created` events, one `task_change` per
// other changed task), so nothing is observable before it is durable. Not
// thread-safe: the engine loop owns it.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "scheduler/dispatch/ready_queue.h"
#include "scheduler/store/records.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine {

class RunState {
 public:
  explicit RunState(store::RunRecord record);
  // Ends ready_run(): the ready queue's entries view task ids kept here.
  ~RunState();
  // The task index points into tasks_: a copy would point into the original.
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;
  RunState(RunState&&) = default;
  RunState& operator=(RunState&&) = delete;

  const std::string& run_id() const { return record_.run().run_id(); }
  // The root of the run's tree (itself when it has no parent): the request
  // its ledger and caches belong to, and the run whose budget caps the tree.
  const std::string& root_run_id() const {
    const v1::Run& run = record_.run();
    return run.root_run_id().empty() ? run.run_id() : run.root_run_id();
  }
  const store::RunRecord& record() const { return record_; }
  // The run's own fields. Phases change through MutablePhase / MutablePhases,
  // which record which ones to write: a run's phases are stored one key each,
  // so a commit rewrites only those that changed (a board has one per task).
  store::RunRecord& MutableRecord();
  store::PhaseRecord& MutablePhase(int index);
  google::protobuf::RepeatedPtrField<store::PhaseRecord>& MutablePhases();
  // The record as stored under the run's key: everything but the phases.
  std::string SerializeWithoutPhases();
  // Phase `index` as stored under its key: without its resolved map items,
  // which have a key of their own (a map of 10,000 items rewrote them with
  // every progress count). Sets `items` to the serialized PhaseItems when
  // they changed since last taken (fan-out, a resume, loading the run), so
  // they are written only then.
  std::string SerializePhase(int index, std::optional<std::string>* items);
  // The resolved items of phase `index` changed (fan-out, a reused phase).
  void MarkPhaseItems(int index);

  // Task ids in id order. A B-tree, not a node per id: a submit marks every
  // task of the run changed (10,000 for a large board).
  using TaskIds = absl::btree_set<std::string>;

  const std::map<std::string, store::TaskRecord>& tasks() const { return tasks_; }
  const store::TaskRecord* FindTask(absl::string_view task_id) const;
  // The id of task `task_id` as this run keeps it (its key in tasks()), or
  // "" when there is no such task. The view stays valid as long as the
  // RunState, even after the task is removed: ready-queue entries hold it.
  absl::string_view KeptTaskId(absl::string_view task_id) const;
  // The run as the ready queue knows it (dispatch/ready_queue.h), made on
  // first use and ended when this RunState goes away.
  const std::shared_ptr<dispatch::ReadyRun>& ready_run();
  // The task must exist (a missing one is a broken invariant).
  store::TaskRecord& MutableTask(absl::string_view task_id);
  // Adds or replaces a task.
  store::TaskRecord& PutTask(store::TaskRecord task);
  void RemoveTask(absl::string_view task_id);
  // Loads a task from the store without marking it changed (recovery).
  void LoadTask(store::TaskRecord task);
  // LoadTask of each, in any order.
  void LoadTasks(std::vector<store::TaskRecord> tasks);

  // Queues an event (its payload; the engine assigns seq and ts).
  void Emit(v1::RunEvent event);
  // Queues an event ahead of those already queued: ResumeRun's run_started
  // names the reused phases, known only once the driver started.
  void EmitFirst(v1::RunEvent event);
  // Numbers the next event (1-based, no gaps) and records it as the run's
  // last seq. The engine calls it while committing, so it is not a change.
  int64_t NextSeq();

  struct Changes {
    bool run = false;
    std::vector<int> phases;         // indexes of changed phases
    std::vector<std::string> tasks;  // changed or added, in id order
    // Parallel to `tasks`: whether the task was added since the last
    // commit (announced in tasks_created rather than task_change).
    std::vector<bool> created;
    std::vector<std::string> removed;  // task ids to delete
    std::vector<v1::RunEvent> events;  // emitted, in order
    bool empty() const {
      return !run && phases.empty() && tasks.empty() && removed.empty() && events.empty();
    }
  };
  // Returns and clears what changed since the last call.
  Changes TakeChanges();
  bool HasChanges() const;
  // Ids of tasks changed since the last TakeChanges, without taking them.
  const TaskIds& changed_tasks() const { return changed_tasks_; }

 private:
  store::RunRecord record_;
  // The record for `id` in tasks_, made (and indexed) if there is none.
  store::TaskRecord& Slot(const std::string& id);
  // Brings the run's tasks_total / tasks_done up to date with the tasks
  // changed since the last commit (ListRuns reads them from the record).
  void CountTasks();

  std::map<std::string, store::TaskRecord> tasks_;
  // Removed tasks' nodes, their records emptied: their ids stay where
  // KeptTaskId said for as long as the RunState (only a resume removes
  // tasks, a few per run).
  std::vector<std::map<std::string, store::TaskRecord>::node_type> removed_nodes_;
  std::shared_ptr<dispatch::ReadyRun> ready_run_;
  // tasks_ by id, for lookups that do not grow with the run (a map's nodes
  // do not move, so the keys and records stay put).
  absl::flat_hash_map<absl::string_view, store::TaskRecord*> task_index_;
  // Ids (keys of tasks_) of the tasks in a final state, counted into the
  // run's tasks_done.
  absl::flat_hash_set<absl::string_view> finished_;
  // Ids (keys of tasks_) of the tasks added since the last TakeChanges.
  absl::flat_hash_set<absl::string_view> created_;
  bool run_changed_ = false;
  // Indexes of changed phases, each once (phase_marked_), sorted when taken:
  // a board has a phase per task, and a tree of them cost a node per task.
  std::vector<int> changed_phases_;
  std::vector<bool> phase_marked_;
  void MarkPhase(int index);
  bool all_phases_changed_ = false;
  // Phases whose items the store may not hold as they are now.
  std::vector<bool> items_changed_;
  // How many phases there were when MutablePhases was first called since
  // the last TakeChanges.
  int phases_before_replace_ = 0;
  TaskIds changed_tasks_;
  TaskIds removed_tasks_;
  std::vector<v1::RunEvent> events_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_RUN_STATE_H_
