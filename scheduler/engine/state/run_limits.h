#ifndef TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_LIMITS_H_
#define TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_LIMITS_H_

// The caps on what one run may fan out to: map items, planned tasks,
// revision rounds, interpolated text, tool results, child runs and event
// payloads (docs/security.md#limits). Each has a scheduler flag (named here,
// so every error names the flag that raises the limit) and a default
// generous enough for real flows; hostile or runaway input stops at the cap
// with an error instead of exhausting memory, storage or watchers.
//
// Intake (flow_intake.h) checks what a submission shows up front (parallel
// branches, maxIterations); the engine checks what only appears while the
// run executes (map items, plans, interpolation, tool results, child runs,
// events).

#include <cstdint>

namespace taskboard::engine {

namespace limit_flags {
inline constexpr char kMaxItemsPerPhase[] = "--max-items-per-phase";
inline constexpr char kMaxPlanTasks[] = "--max-plan-tasks";
inline constexpr char kMaxIterations[] = "--max-iterations";
inline constexpr char kMaxInterpolatedBytes[] = "--max-interpolated-bytes";
inline constexpr char kMaxToolResultBytes[] = "--max-tool-result-bytes";
inline constexpr char kMaxChildRunsPerRun[] = "--max-child-runs-per-run";
inline constexpr char kMaxRunDepth[] = "--max-run-depth";
inline constexpr char kMaxEventBytes[] = "--max-event-bytes";
}  // namespace limit_flags

struct RunLimits {
  // Tasks one map phase fans out to (its resolved `over`), and branches of
  // one parallel phase (checked at intake).
  int max_items_per_phase = 10'000;
  // Tasks in one plan: a planner's (plan-and-execute, supervisor), a
  // replanner's, or an evaluator's inline tasks. Over it the plan is invalid.
  int max_plan_tasks = 1'000;
  // The highest `maxIterations` a flow may ask for (rejected at intake).
  int max_iterations = 100;
  // One interpolated template (a task, a map's `over`, a branch's task).
  int64_t max_interpolated_bytes = 2 << 20;
  // One tool result reported by a worker; larger ones are refused (recorded
  // as an error, never cached).
  int64_t max_tool_result_bytes = 4 << 20;
  // Child runs one run may start (nested patterns).
  int max_child_runs_per_run = 1'000;
  // How deep runs nest (a root run is at depth 0): child runs of nested
  // patterns and runs a task's agent starts (SubmitRunRequest.started_by)
  // alike, so a flow that starts itself stops here.
  int max_run_depth = 8;
  // One run event as stored and sent to watchers; larger ones have their
  // longest texts cut, with a marker (event_size.h).
  int64_t max_event_bytes = 2 << 20;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_STATE_RUN_LIMITS_H_
