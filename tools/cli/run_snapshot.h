#ifndef TASKBOARD_TOOLS_CLI_RUN_SNAPSHOT_H_
#define TASKBOARD_TOOLS_CLI_RUN_SNAPSHOT_H_

// The run a follower shows (`taskboard run`, `watch`, `resume`), kept up to
// date from the run's WatchRun events instead of fetching the whole run
// (GetRun, every task) again after each batch of them: a refresh costs both
// sides in proportion to the run's tasks, so following a 100,000-task board
// cost a quarter of its throughput.
//
// Each event carries what it changed whole (task_change the Task,
// phase_change the PhaseStatus), so applying them in seq order to a GetRun
// answer gives what GetRun would answer after them:
//   task_change        replaces the task with that id, or adds it where
//                      GetRun lists it (by id length, then bytes: the
//                      scheduler's key order); tasks_total, tasks_done and
//                      usage follow (usage adds a task's new usage when it
//                      changed: each result adds its own, as the scheduler
//                      counts, retried attempts included)
//   tasks_created      each of its tasks as a task_change (the tasks a step
//                      added: a submitted board's, a map's items)
//   phase_change       replaces the phase; a fan-out phase that starts anew
//                      drops its tasks past its new item count, as the
//                      scheduler does after a resume with fewer items
//   board_meta         the pattern phase
//   child_run_started  the child run id
//   run_finished       status, output, error, usage and finished_at (the
//                      event's time)
//   output_delta, observation, warning: nothing (GetRun does not show them)
// Some events cannot be applied, and Apply says so (kNeedsFetch) so the
// caller fetches the run: run_started past the snapshot (a resume resets
// phases and output without other events), a phase the snapshot does not
// have, an event whose texts the scheduler cut to --max-event-bytes, and
// kinds added to the API after this CLI.
//
// Two things stay as the last GetRun had them: `billed` (model calls raise
// no event; the follower fetches the run at the end for it) and a board's
// phases (one per task, which the scheduler does not announce: boards are
// shown by their tasks).
//
// A follower that watches from seq 0 need not fetch the tasks at all: it
// starts from GetRun without tasks (ResetWithoutTasks), the replay puts
// every task in, and at the end it takes the finished run without tasks
// again (RefreshWithoutTasks). Fetching a 100,000-task board whole at the
// start and at the end was a fifth of a following CLI's time.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

class RunSnapshot {
 public:
  enum class Applied {
    kUnchanged,   // already in the snapshot (seq <= last_seq), or shows nothing
    kChanged,     // applied
    kNeedsFetch,  // cannot be applied: fetch the run and Reset
  };

  // Starts again from a GetRun answer.
  void Reset(v1::Run run);

  // Starts again from a GetRun answer without tasks (GetRunRequest
  // without_tasks), which WatchRun's replay from seq 0 completes: the tasks
  // that task_change and tasks_created events up to its last_seq carry are
  // put in without counting them again (its tasks_total, tasks_done and
  // usage already count them). Once that replay is applied, the snapshot is
  // what Reset of the whole GetRun answer gives; when it cannot be (the run
  // was resumed, which deletes tasks unannounced, or its events do not bring
  // every task), Apply says kNeedsFetch. An answer that has the tasks (a
  // scheduler older than without_tasks) is taken as Reset takes it.
  void ResetWithoutTasks(v1::Run run);

  // Takes a GetRun answer without tasks for everything but the tasks, which
  // stay as the events left them: the end of a follow, for the run's billing.
  // False, changing nothing, when the answer counts tasks the snapshot does
  // not hold, or the replay that completes it has not ended: fetch the run
  // whole instead.
  bool RefreshWithoutTasks(v1::Run run);

  // Moves the event's tasks into the snapshot.
  Applied Apply(v1::RunEvent&& event);
  Applied Apply(const v1::RunEvent& event);

  // The run as GetRun would answer it after the events applied.
  const v1::Run& run();

  // The tasks that changed since the previous call, in run()'s order, each
  // once; nullopt when any task may have (a Reset, items dropped) or so
  // many did that looking at every task is as cheap. Lets the
  // live view's log look at what changed instead of at every task
  // (TransitionLog::Lines).
  std::optional<std::vector<const v1::Task*>> TakeChangedTasks();

  // GetRun's task order (the scheduler's key order): shorter ids first, then
  // bytewise, so `t9` comes before `t10`.
  static bool TaskOrder(absl::string_view a, absl::string_view b);

 private:
  Applied ApplyTask(v1::Task&& task);
  // An event of the replay that completes a snapshot without tasks.
  Applied Fill(v1::RunEvent& event);
  // Puts `task` in as it is, counting nothing (Fill).
  void PutTask(v1::Task&& task);
  Applied ApplyPhase(const v1::PhaseStatus& phase);
  // Drops the tasks of fan-out phase `phase_id` with item_index >= items.
  void DropItemsPast(const std::string& phase_id, int items);
  void Reindex();
  void IndexPhases();
  void MarkChanged(const v1::Task* task);

  v1::Run run_;
  absl::flat_hash_map<std::string, v1::Task*> tasks_;
  absl::flat_hash_map<std::string, int> phases_;
  // run_.tasks() from here on were added since the last run() and may be
  // out of GetRun's order.
  int ordered_ = 0;
  // ResetWithoutTasks: the replay's events up to this seq fill in the tasks
  // (0: nothing to fill), and the run_started events seen among them (a
  // second one is a resume).
  int64_t fill_until_ = 0;
  int fill_run_starts_ = 0;
  // TakeChangedTasks: the tasks changed since, or all of them.
  std::vector<const v1::Task*> changed_;
  bool all_changed_ = true;
};

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUN_SNAPSHOT_H_
