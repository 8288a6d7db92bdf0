#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_CONTROL_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_CONTROL_H_

// Client-driven run transitions that apply to every flow kind: cancelling a
// run and preparing a finished run for ResumeRun.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/state/run_state.h"

namespace taskboard::engine {

// Cancels every task of `run` that is not terminal, with `message` as the
// reason; returns the lease ids that were live so the engine can tell their
// workers to stop. A run that ended keeps no open task (a supervisor that
// fails on a worker's failure while others still run, say).
std::vector<std::string> CancelOpenTasks(RunState& run, absl::string_view message, int64_t now_ms);

// Cancels every task that is not terminal and every unfinished phase, and
// ends the run `cancelled` with a run_finished event. Returns the lease ids
// that were live, so the engine can tell their workers to stop.
std::vector<std::string> CancelRunState(RunState& run, absl::string_view reason, int64_t now_ms);

// Like CancelRunState, but the run ends `paused` ("paused: <reason>"): a
// budget stopped it, and ResumeRun continues it, keeping completed work.
std::vector<std::string> PauseRunState(RunState& run, absl::string_view reason, int64_t now_ms);

// Like CancelRunState, but the run ends `timed_out` ("timed out: run
// deadline 30s (flow) passed"): its deadline passed
// (docs/semantics.md#run-deadlines). A run without a deadline is left as is.
std::vector<std::string> TimeOutRunState(RunState& run, int64_t now_ms);

// FAILED_PRECONDITION unless the run is failed, blocked, cancelled, paused or
// timed out.
absl::Status CheckResumable(const store::RunRecord& record);

// ResumeRun's new budget: FAILED_PRECONDITION when a limit it sets is not
// more than the run billed already (the run would pause again at once).
absl::Status RaiseBudget(store::RunRecord& record, std::optional<double> usd,
                         std::optional<int64_t> tokens);

// Puts a finished run back to `running` under a new generation: every phase
// becomes pending and remembers its previous record, so the driver can reuse
// a done phase whose input hash is unchanged.
void PrepareResume(RunState& run);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_CONTROL_H_
