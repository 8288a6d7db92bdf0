#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_RESUME_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_RESUME_H_

// ResumeRun for the pattern drivers (plan-and-execute, supervisor): the run
// is rewound to the first thing that did not complete, keeping every
// completed task, so only the unfinished work runs again (decision 79).
//
// - A work task (a plan step, a supervisor worker) that did not complete
//   (failed, cancelled, skipped, or cut off mid-flight) goes back to PENDING
//   with fresh attempts; the driver readies it in dependency order.
// - A task of the driver's own (planner, evaluator, replanner, reviewer,
//   synthesizer) that did not complete is READY again, with the prompt it had.
// - An approval task (plan approval, human review) that did not complete
//   waits for a person again (approval_task.h AskAgain).
// - A task carried out by a child run keeps its child: the engine resumes that
//   child under its own id instead of starting a new one (child_runs.h).
// - A run that had reached its end (it failed because nothing completed, or a
//   reviewer escalated) goes back to `active` and its synthesizer, which
//   judged the old results, is dropped to run again over the new ones.

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/engine/state/run_state.h"

namespace taskboard::engine {

struct PatternShape {
  // The role of the tasks the driver readies itself from PENDING.
  std::string work_role;
  // The synthesizer's task id.
  std::string synthesizer_id;
};

// Puts `task` back to PENDING as if new: fresh attempts, no lease, no error,
// output or timings. A task carried out by a child run keeps its child run
// id (the engine resumes it).
void ResetForResume(store::TaskRecord& task);

// Rewinds `run` as described above and returns the ids of the work tasks
// that will run again. The driver then calls its Advance.
std::vector<std::string> RewindPatternRun(RunState& run, const PatternShape& shape, int64_t now_ms);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_RESUME_H_
