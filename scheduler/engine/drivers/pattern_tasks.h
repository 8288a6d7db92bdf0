#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_TASKS_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_TASKS_H_

// What the pattern drivers (plan-and-execute, supervisor) share: the goal
// with the run's args filled in, a new task of the run, and the
// `pattern_phase` with its board_meta event.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/engine/state/run_state.h"
#include "scheduler/flow/plan_output.h"
#include "scheduler/store/records.pb.h"

namespace taskboard::engine {

// The `pattern_phase` values (and board_meta phases) of the pattern drivers.
namespace pattern_phase {
inline constexpr char kPlanning[] = "planning";
inline constexpr char kActive[] = "active";
inline constexpr char kEvaluating[] = "evaluating";
inline constexpr char kReplanning[] = "replanning";
// Waiting for a person: a plan approval, or human reviews of escalations.
inline constexpr char kApproving[] = "approving";
inline constexpr char kHumanReview[] = "human-review";
inline constexpr char kReviewing[] = "reviewing";
inline constexpr char kRevising[] = "revising";
inline constexpr char kSynthesizing[] = "synthesizing";
inline constexpr char kCompleted[] = "completed";
}  // namespace pattern_phase

// `goal_template` with `{args.*}` filled in from the run (the template as is
// if it does not interpolate; the validator has checked it).
std::string PatternGoal(const RunState& run, absl::string_view goal_template);

struct PatternTaskOptions {
  int timeout_seconds = 0;
  int max_attempts = 1;
};

// A PENDING task of the run with its assignment filled in, next in the run's
// FIFO order. The caller adds it with RunState::PutTask.
store::TaskRecord NewPatternTask(RunState& run, std::string id, std::string role, std::string agent,
                                 std::string prompt, const PatternTaskOptions& options,
                                 int64_t now_ms);

// Fails an attempt the driver judged unusable (an invalid plan, review or
// `success: false`) and readies the task at once while attempts remain: the
// agent did answer, so there is no backoff to wait out. True when the task
// has failed for good (no attempts left).
bool FailAndMaybeRetry(store::TaskRecord& task, std::string error, int64_t now_ms);

// The plan of the planner task `planner_id` once there is one to act on:
// nullopt while the planner has not completed. A plan that does not parse,
// or has more than `limits.max_plan_tasks` tasks, fails the planner's
// attempt (retried at once while attempts remain, the error in the task); a
// planner that failed for good fails the run with `planner failed: ...`.
std::optional<std::vector<flow::PlannedTask>> TakePlan(RunState& run, const std::string& planner_id,
                                                       const RunLimits& limits, int64_t now_ms);

// OK, or INVALID_ARGUMENT naming --max-plan-tasks when a plan (or the tasks
// a replan adds) has more than `limits.max_plan_tasks` tasks.
absl::Status CheckPlanSize(size_t tasks, const RunLimits& limits);

// Fails the run because the driver's own task `task` (an evaluator,
// reviewer, replanner or synthesizer) failed for good, keeping `output` (the
// results so far). The completed work stays: ResumeRun runs that task again
// (pattern_resume.h).
void FailPatternRun(RunState& run, const store::TaskRecord& task, std::string output,
                    int64_t now_ms);

// Records where the run is and tells watchers (a board_meta event).
void SetPatternPhase(RunState& run, const std::string& phase, int iteration, std::string detail);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_PATTERN_TASKS_H_
