#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_STATE_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_STATE_H_

// One run's in-memory state as the engine and its driver see it: the stored
// run record, its tasks, and what changed since the engine last committed.
//
// Drivers and the task lifecycle mutate a RunState only through the Mutable*
// and Add/Remove methods, which record the change; the engine turns the
// recorded changes into one WriteBatch plus the run's watch events (what was
// emitted, the added tasks in `tasks_created` events, one `task_change` per
// other changed task), so nothing is observable before it is durable. Not
// thread-safe: the engine loop owns it (even its const reads parse kept
// tasks: TaskSlot).

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

  // A task as the run keeps it. While the engine works on a task (it is
  // dispatched or running, or was read or changed in this batch) it is a
  // parsed record; a task that waits (pending, ready, retrying) or is over is
  // kept as its serialized record (about 100 bytes for a no-op board task,
  // against 1.2 KiB for the protobuf messages it parses into): a run holds
  // its every task, and issue 19 asks for under 1 KiB per pending one.
  // Reading a task parses it again (it stays parsed until the next Freeze);
  // Freeze, after each commit, lets go of the parsed records of the tasks
  // that wait or are over.
  struct TaskSlot {
    // Null while frozen. A record handed out stays where it is until Freeze.
    mutable std::unique_ptr<store::TaskRecord> record;
    // The record serialized: always while frozen; while parsed, only as long
    // as the parsed record is the same (else empty).
    std::string bytes;
    // The task's state while frozen (read without parsing).
    v1::TaskState frozen_state = v1::TASK_STATE_UNSPECIFIED;
    v1::TaskState state() const { return record ? record->task().state() : frozen_state; }
  };
  using TaskMap = std::map<std::string, TaskSlot>;

  // The run's tasks in id order, each parsed when visited: (id, record)
  // pairs, as from a map.
  class TaskList {
   public:
    class Iterator {
     public:
      using value_type = std::pair<const std::string&, const store::TaskRecord&>;
      using difference_type = std::ptrdiff_t;
      using iterator_category = std::forward_iterator_tag;
      using reference = value_type;
      struct Arrow {
        value_type entry;
        const value_type* operator->() const { return &entry; }
      };
      Iterator() = default;
      Iterator(const RunState* run, TaskMap::const_iterator at) : run_(run), at_(at) {}
      // The id and state, without parsing the task.
      const std::string& id() const { return at_->first; }
      v1::TaskState state() const { return at_->second.state(); }
      value_type operator*() const { return {at_->first, run_->Parsed(at_->second)}; }
      Arrow operator->() const { return {**this}; }
      Iterator& operator++() {
        ++at_;
        return *this;
      }
      Iterator operator++(int) {
        Iterator before = *this;
        ++at_;
        return before;
      }
      bool operator==(const Iterator& other) const { return at_ == other.at_; }
      bool operator!=(const Iterator& other) const { return at_ != other.at_; }

     private:
      const RunState* run_ = nullptr;
      TaskMap::const_iterator at_;
    };
    using value_type = Iterator::value_type;
    using const_iterator = Iterator;
    using iterator = Iterator;

    explicit TaskList(const RunState* run) : run_(run) {}
    Iterator begin() const { return {run_, run_->tasks_.begin()}; }
    Iterator end() const { return {run_, run_->tasks_.end()}; }
    Iterator lower_bound(const std::string& id) const {
      return {run_, run_->tasks_.lower_bound(id)};
    }
    size_t size() const { return run_->tasks_.size(); }
    bool empty() const { return run_->tasks_.empty(); }

   private:
    const RunState* run_;
  };
  TaskList tasks() const { return TaskList(this); }
  // Ids of the run's tasks that start with `prefix`, in id order, without
  // parsing any.
  std::vector<absl::string_view> TaskIdsWithPrefix(const std::string& prefix) const;
  bool HasTask(absl::string_view task_id) const { return task_index_.contains(task_id); }
  // The task's state without parsing it; nullopt if there is no such task.
  std::optional<v1::TaskState> StateOf(absl::string_view task_id) const {
    auto it = task_index_.find(task_id);
    if (it == task_index_.end()) return std::nullopt;
    return it->second->state();
  }
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
  // Removes a task; a record handed out for it is invalid from here on.
  void RemoveTask(absl::string_view task_id);
  // A task as read from the store: the record and its bytes.
  struct StoredTask {
    store::TaskRecord record;
    std::string bytes;
  };
  // Loads a task from the store without marking it changed (recovery). It
  // stays parsed until the next Freeze (recovery reads every task once).
  void LoadTask(StoredTask task);
  // LoadTask of each, in any order.
  void LoadTasks(std::vector<StoredTask> tasks);

  // The commit wrote task `task_id` as `bytes`: kept, so that Freeze need not
  // serialize it again.
  void Committed(absl::string_view task_id, const std::string& bytes);
  // Lets go of the parsed records of the tasks read or changed since the
  // last Freeze that wait (pending, ready, retrying) or are over; those the
  // engine works on (dispatched, running) stay parsed. The engine calls it
  // after each commit and after recovering a run: records handed out before
  // are invalid after.
  void Freeze();
  // How many tasks are held parsed (tests and benchmarks).
  size_t ParsedTaskCount() const;

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
  // The slot for `id` in tasks_, made (and indexed) if there is none.
  TaskSlot& Slot(const std::string& id);
  // Brings the run's tasks_total / tasks_done up to date with the tasks
  // changed since the last commit (ListRuns reads them from the record).
  void CountTasks();

  // The record of `slot`, parsed if frozen (and listed for the next Freeze).
  const store::TaskRecord& Parsed(const TaskSlot& slot) const;
  store::TaskRecord& MutableParsed(TaskSlot& slot);

  TaskMap tasks_;
  // Slots parsed since the last Freeze, each once (a slot stays listed
  // while parsed). Removed slots stay valid (removed_nodes_).
  mutable std::vector<const TaskSlot*> parsed_;
  // Removed tasks' nodes, their records emptied: their ids stay where
  // KeptTaskId said for as long as the RunState (only a resume removes
  // tasks, a few per run).
  std::vector<TaskMap::node_type> removed_nodes_;
  std::shared_ptr<dispatch::ReadyRun> ready_run_;
  // tasks_ by id, for lookups that do not grow with the run (a map's nodes
  // do not move, so the keys and records stay put).
  absl::flat_hash_map<absl::string_view, TaskSlot*> task_index_;
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

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_STATE_H_
