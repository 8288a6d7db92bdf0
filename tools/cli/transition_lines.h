#ifndef TASKBOARD_TOOLS_CLI_TRANSITION_LINES_H_
#define TASKBOARD_TOOLS_CLI_TRANSITION_LINES_H_

// The log form of the live view, for output that is not a terminal (CI, a
// file, a pipe): instead of redrawing a frame, one line per phase (taskflow)
// or task (other kinds) whose state changed between two snapshots, stamped
// with the time since the run was created:
//
//   [+12.3s] ✓ discover  completed  12.3s  ↑1.2k ↓310 $0.0021
//   [+52.0s] ⊘ lint  skipped  upstream phase 'summarize' failed
//   [+58.2s] ⛔ check  completed  3.1s  BLOCK: summaries are empty

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

// The tasks of a run that changed since a TransitionLog last saw it, in the
// run's order (RunSnapshot::TakeChangedTasks); nullopt: any may have.
using ChangedTasks = std::optional<std::vector<const v1::Task*>>;

// Remembers the state of every phase (taskflow) or task (other kinds) it
// has seen, so each call costs a lookup per item and no copy of the run:
// a follower of a 100,000-task board calls it several times a second.
class TransitionLog {
 public:
  // Takes `run`'s states as announced, without lines.
  void Remember(const v1::Run& run);

  // Lines for every phase/task of `run` whose state differs from the last
  // one seen (never seen counts as pending; pending ones are not announced),
  // in `run`'s order, plus one when a pattern's board phase (planning,
  // active, ...) changed. A line is stamped with the change's own time when
  // the snapshot has it (started_at, finished_at), else `now`. Given
  // `changed`, only those tasks are looked at (the others are as last seen),
  // so following a 100,000-task board costs per change, not per task; the
  // lines are the same.
  std::vector<std::string> Lines(const v1::Run& run, absl::Time now,
                                 const ChangedTasks& changed = std::nullopt);

 private:
  struct Seen {
    v1::TaskState state = v1::TASK_STATE_PENDING;
    bool gate = false;
  };
  // `lines` null: only remember.
  void Visit(const v1::Run& run, absl::Time now, const ChangedTasks& changed,
             std::vector<std::string>* lines);
  template <typename Item, typename SubjectOf>
  void See(const Item& item, const SubjectOf& subject_of, const v1::Run& run, absl::Time now,
           std::vector<std::string>* lines);

  absl::flat_hash_map<std::string, Seen> seen_;
  std::string board_meta_;
};

// The lines a TransitionLog that saw `before` gives for `after`.
std::vector<std::string> TransitionLines(const v1::Run& before, const v1::Run& after,
                                         absl::Time now);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TRANSITION_LINES_H_
