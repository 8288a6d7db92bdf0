#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_DRIVER_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_DRIVER_H_

// A driver is the state machine of one flow kind: it decides which tasks a
// run has, when each becomes ready, what a finished task means for the rest,
// and when the run is over. It is pure: it reads and mutates a RunState and
// never talks to workers, the store or the network, so every flow behaviour
// is unit-tested by feeding task outcomes to a RunState.
//
// Contract with the engine:
// - Start creates the run's phases/tasks (or, after ResumeRun, re-creates
//   what must run again) and makes the first tasks READY.
// - The engine moves tasks through dispatch, retries and results
//   (task_lifecycle.h); whenever a task of the run reaches a terminal state,
//   or on any other change, it calls Advance.
// - Advance makes newly possible tasks READY, skips what can no longer run,
//   and sets the run's terminal status (plus a `run_finished` event) when
//   nothing is left to do.
// - Resume continues a run ResumeRun put back to `running` (run_control.h):
//   what completed is kept, what did not is done again. Taskflows and boards
//   re-run their phases through Start (a done phase with an unchanged input
//   hash is reused); the patterns rewind their own tasks (pattern_resume.h).
//
// Taskflows and boards are TaskflowDriver; plan-and-execute and supervisor
// are PatternDrivers (pattern_driver.h), which share the planner, the
// decision loop, the synthesizer, resume and failure handling, so a new
// pattern is one file of decisions. Any driver may hand a task to a child run
// (child_runs.h); the engine starts, resumes and settles it for all of them.

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

class Driver {
 public:
  virtual ~Driver() = default;
  virtual void Start(RunState& run, int64_t now_ms) = 0;
  virtual void Advance(RunState& run, int64_t now_ms) = 0;
  virtual void Resume(RunState& run, int64_t now_ms) { Start(run, now_ms); }
};

// The driver for `spec`'s kind, enforcing `limits` (run_limits.h), from the
// table in driver_factory.cc. UNIMPLEMENTED for a spec without a kind, or of
// a kind this scheduler version cannot run yet.
absl::StatusOr<std::unique_ptr<Driver>> MakeDriver(const v1::FlowSpec& spec,
                                                   const RunLimits& limits);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_DRIVER_H_
